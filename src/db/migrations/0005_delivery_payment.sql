ALTER TABLE "webhook_deliveries" ADD COLUMN "payment_id" uuid;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_payment_id_index" ON "webhook_deliveries" USING btree ("payment_id");