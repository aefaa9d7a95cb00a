-- Rows written before the index may break it (two racing activations): keep the wallet's latest active destination per account (the one payout-lookup would pick), move the client IDs bound to the others onto it, and end the others.
WITH "ranked" AS (
	SELECT "id", first_value("id") OVER "w" AS "keep", row_number() OVER "w" AS "n"
	FROM "payee_destinations" WHERE "active"
	WINDOW "w" AS (PARTITION BY "account_id", "wallet_address" ORDER BY "updated_at" DESC, "id" DESC)
)
UPDATE "client_ids" SET "payee_destination_id" = "ranked"."keep", "updated_at" = now()
FROM "ranked" WHERE "ranked"."n" > 1 AND "client_ids"."payee_destination_id" = "ranked"."id" AND "client_ids"."status" <> 'revoked';--> statement-breakpoint
WITH "ranked" AS (
	SELECT "id", row_number() OVER (PARTITION BY "account_id", "wallet_address" ORDER BY "updated_at" DESC, "id" DESC) AS "n"
	FROM "payee_destinations" WHERE "active"
)
UPDATE "payee_destinations" SET "active" = false, "updated_at" = now()
FROM "ranked" WHERE "ranked"."n" > 1 AND "payee_destinations"."id" = "ranked"."id";--> statement-breakpoint
CREATE UNIQUE INDEX "payee_destinations_one_active_per_wallet" ON "payee_destinations" USING btree ("account_id","wallet_address") WHERE active;
