ALTER TABLE "payments" ADD COLUMN "source_network" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "source_tx_hash" text;--> statement-breakpoint
CREATE INDEX "payments_crosschain" ON "payments" USING btree ("account_id","timestamp","id") WHERE "payments"."source_network" is not null;