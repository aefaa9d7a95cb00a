CREATE TABLE "payment_daily_totals" (
	"account_id" uuid NOT NULL,
	"day" date NOT NULL,
	"currency" text NOT NULL,
	"flow" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"payments" integer NOT NULL,
	CONSTRAINT "payment_daily_totals_account_id_day_currency_flow_pk" PRIMARY KEY("account_id","day","currency","flow")
);
--> statement-breakpoint
ALTER TABLE "requests" ADD COLUMN "payout" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "response_excerpt" text;--> statement-breakpoint
CREATE INDEX "secure_payments_pending_index" ON "secure_payments" USING btree ("account_id","expires_at") WHERE "secure_payments"."status" = 'pending';
--> statement-breakpoint
-- Requests the account pays out: those of payout links and of recurring payouts (the
-- requests of POST /v2/payouts made before this column cannot be told apart, and stay `in`).
UPDATE "requests" AS r SET "payout" = true
FROM "secure_payments" AS s
WHERE s."id" = r."secure_payment_id" AND s."payout";
--> statement-breakpoint
UPDATE "requests" SET "payout" = true
WHERE "id" IN (SELECT "request_row_id" FROM "recurring_executions");
--> statement-breakpoint
-- What the payments recorded so far came to.
INSERT INTO "payment_daily_totals" ("account_id", "day", "currency", "flow", "amount", "payments")
SELECT p."account_id", (p."timestamp" AT TIME ZONE 'UTC')::date, r."payment_currency",
       CASE WHEN r."payout" THEN 'out' ELSE 'in' END, sum(p."amount"), count(*)
FROM "payments" AS p JOIN "requests" AS r ON r."id" = p."request_row_id"
GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
-- Kept current by every statement that records payments, or deletes them (a reorganisation):
-- once per statement, over the rows it changed (a transition table), so a block's hundred
-- payments update each day's total once.
CREATE FUNCTION "payment_daily_totals_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "payment_daily_totals" AS t ("account_id", "day", "currency", "flow", "amount", "payments")
  SELECT p."account_id", (p."timestamp" AT TIME ZONE 'UTC')::date, r."payment_currency",
         CASE WHEN r."payout" THEN 'out' ELSE 'in' END, sum(p."amount"), count(*)
  FROM "added" AS p JOIN "requests" AS r ON r."id" = p."request_row_id"
  GROUP BY 1, 2, 3, 4
  -- The same order in every statement: two that add to the same days never deadlock.
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ("account_id", "day", "currency", "flow") DO UPDATE
  SET "amount" = t."amount" + excluded."amount", "payments" = t."payments" + excluded."payments";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "payment_daily_totals_remove"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "payment_daily_totals" AS t
  SET "amount" = t."amount" - g."amount", "payments" = t."payments" - g."payments"
  FROM (
    SELECT p."account_id", (p."timestamp" AT TIME ZONE 'UTC')::date AS "day",
           r."payment_currency" AS "currency", CASE WHEN r."payout" THEN 'out' ELSE 'in' END AS "flow",
           sum(p."amount") AS "amount", count(*) AS "payments"
    FROM "removed" AS p JOIN "requests" AS r ON r."id" = p."request_row_id"
    GROUP BY 1, 2, 3, 4
  ) AS g
  WHERE t."account_id" = g."account_id" AND t."day" = g."day" AND t."currency" = g."currency"
    AND t."flow" = g."flow";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "payments_daily_totals_add" AFTER INSERT ON "payments"
REFERENCING NEW TABLE AS "added" FOR EACH STATEMENT EXECUTE FUNCTION "payment_daily_totals_add"();
--> statement-breakpoint
CREATE TRIGGER "payments_daily_totals_remove" AFTER DELETE ON "payments"
REFERENCING OLD TABLE AS "removed" FOR EACH STATEMENT EXECUTE FUNCTION "payment_daily_totals_remove"();
--> statement-breakpoint
-- payreq never changes a payment's amount, day or request, but a statement that does (an
-- operator's correction) moves its total with it: what it was is taken away, what it is added.
CREATE FUNCTION "payment_daily_totals_move"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "payment_daily_totals" AS t
  SET "amount" = t."amount" - g."amount", "payments" = t."payments" - g."payments"
  FROM (
    SELECT p."account_id", (p."timestamp" AT TIME ZONE 'UTC')::date AS "day",
           r."payment_currency" AS "currency", CASE WHEN r."payout" THEN 'out' ELSE 'in' END AS "flow",
           sum(p."amount") AS "amount", count(*) AS "payments"
    FROM "removed" AS p JOIN "requests" AS r ON r."id" = p."request_row_id"
    GROUP BY 1, 2, 3, 4
  ) AS g
  WHERE t."account_id" = g."account_id" AND t."day" = g."day" AND t."currency" = g."currency"
    AND t."flow" = g."flow";
  INSERT INTO "payment_daily_totals" AS t ("account_id", "day", "currency", "flow", "amount", "payments")
  SELECT p."account_id", (p."timestamp" AT TIME ZONE 'UTC')::date, r."payment_currency",
         CASE WHEN r."payout" THEN 'out' ELSE 'in' END, sum(p."amount"), count(*)
  FROM "added" AS p JOIN "requests" AS r ON r."id" = p."request_row_id"
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ("account_id", "day", "currency", "flow") DO UPDATE
  SET "amount" = t."amount" + excluded."amount", "payments" = t."payments" + excluded."payments";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "payments_daily_totals_move" AFTER UPDATE ON "payments"
REFERENCING OLD TABLE AS "removed" NEW TABLE AS "added"
FOR EACH STATEMENT EXECUTE FUNCTION "payment_daily_totals_move"();
