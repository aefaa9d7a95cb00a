ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk";
--> statement-breakpoint
DROP INDEX "webhook_attempts_delivery_id_index";--> statement-breakpoint
-- An attempt recorded twice (a record retried after a commit it did not hear of) keeps its first row.
DELETE FROM "webhook_attempts" AS "a" USING "webhook_attempts" AS "b" WHERE "a"."delivery_id" = "b"."delivery_id" AND "a"."attempt" = "b"."attempt" AND ("a"."at", "a"."id") > ("b"."at", "b"."id");--> statement-breakpoint
ALTER TABLE "webhook_attempts" DROP COLUMN "id";--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_attempt_pk" PRIMARY KEY("delivery_id","attempt");
