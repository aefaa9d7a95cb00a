ALTER TABLE "payments" ADD COLUMN "detection_source" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "note" text;--> statement-breakpoint
ALTER TABLE "payment_intents" ADD COLUMN "receiving_tx_hash" text;--> statement-breakpoint
ALTER TABLE "payment_intents" ADD COLUMN "bridge_deadline" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payment_intents" ADD COLUMN "delivered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "safe_transactions" ADD COLUMN "transaction" jsonb;--> statement-breakpoint
CREATE INDEX "payment_intents_bridging" ON "payment_intents" USING btree ("status") WHERE "payment_intents"."status" in ('bridging', 'delivered');