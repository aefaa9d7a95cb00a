ALTER TABLE "payment_intents" ADD COLUMN "receiving_tx_hash" text;--> statement-breakpoint
ALTER TABLE "payment_intents" ADD COLUMN "bridge_deadline" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "payment_intents_bridging" ON "payment_intents" USING btree ("status") WHERE "payment_intents"."status" = 'bridging';