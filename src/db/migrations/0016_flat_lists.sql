DROP INDEX "orchestrator_client_links_orchestrator_id_index";--> statement-breakpoint
DROP INDEX "payments_account_id_timestamp_index";--> statement-breakpoint
DROP INDEX "requests_account_id_created_at_index";--> statement-breakpoint
DROP INDEX "secure_payments_account_id_created_at_index";--> statement-breakpoint
DROP INDEX "webhook_deliveries_webhook_id_created_at_index";--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "tx_hash_key" text GENERATED ALWAYS AS (lower(CASE WHEN "tx_hash" LIKE '0x%' THEN substr("tx_hash", 3) ELSE "tx_hash" END)) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "payee_key" text GENERATED ALWAYS AS (CASE WHEN "payee" LIKE '0x%' THEN lower("payee") ELSE "payee" END) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "payer_key" text GENERATED ALWAYS AS (CASE WHEN "payer_address" LIKE '0x%' THEN lower("payer_address") ELSE "payer_address" END) STORED;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "payer_eoa_key" text GENERATED ALWAYS AS (CASE WHEN "payer_eoa_address" LIKE '0x%' THEN lower("payer_eoa_address") ELSE "payer_eoa_address" END) STORED;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "client_id_id" uuid;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "conversion" boolean;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "invoice_currency_key" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "payment_currency_key" text;--> statement-breakpoint
ALTER TABLE "requests" ADD COLUMN "payee_key" text GENERATED ALWAYS AS (CASE WHEN "payee" LIKE '0x%' THEN lower("payee") ELSE "payee" END) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_client_id_id_client_ids_id_fk" FOREIGN KEY ("client_id_id") REFERENCES "public"."client_ids"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "orchestrator_client_links_orchestrator_id_created_at_id_index" ON "orchestrator_client_links" USING btree ("orchestrator_id","created_at","id");--> statement-breakpoint
CREATE INDEX "payments_account_id_timestamp_id_index" ON "payments" USING btree ("account_id","timestamp","id");--> statement-breakpoint
CREATE INDEX "payments_account_id_payee_key_timestamp_id_index" ON "payments" USING btree ("account_id","payee_key","timestamp","id");--> statement-breakpoint
CREATE INDEX "payments_account_id_payer_key_timestamp_id_index" ON "payments" USING btree ("account_id","payer_key","timestamp","id");--> statement-breakpoint
CREATE INDEX "payments_account_id_payer_eoa_key_timestamp_id_index" ON "payments" USING btree ("account_id","payer_eoa_key","timestamp","id");--> statement-breakpoint
CREATE INDEX "payments_account_id_payment_reference_timestamp_id_index" ON "payments" USING btree ("account_id","payment_reference","timestamp","id");--> statement-breakpoint
CREATE INDEX "payments_account_id_tx_hash_key_index" ON "payments" USING btree ("account_id","tx_hash_key");--> statement-breakpoint
CREATE INDEX "payments_account_id_conversion_timestamp_id_index" ON "payments" USING btree ("account_id","conversion","timestamp","id");--> statement-breakpoint
CREATE INDEX "payments_account_id_invoice_currency_key_timestamp_id_index" ON "payments" USING btree ("account_id","invoice_currency_key","timestamp","id");--> statement-breakpoint
CREATE INDEX "payments_account_id_payment_currency_key_timestamp_id_index" ON "payments" USING btree ("account_id","payment_currency_key","timestamp","id");--> statement-breakpoint
CREATE INDEX "payments_client_id_id_timestamp_id_index" ON "payments" USING btree ("client_id_id","timestamp","id");--> statement-breakpoint
CREATE INDEX "requests_account_id_created_at_id_index" ON "requests" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "requests_account_id_payee_key_created_at_id_index" ON "requests" USING btree ("account_id","payee_key","created_at","id");--> statement-breakpoint
CREATE INDEX "requests_client_id_id_created_at_id_index" ON "requests" USING btree ("client_id_id","created_at","id");--> statement-breakpoint
CREATE INDEX "requests_account_id_reference_index" ON "requests" USING btree ("account_id","reference");--> statement-breakpoint
CREATE INDEX "secure_payments_account_id_created_at_id_index" ON "secure_payments" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "secure_payments_account_id_payout_created_at_id_index" ON "secure_payments" USING btree ("account_id","payout","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_webhook_id_id_index" ON "webhook_deliveries" USING btree ("webhook_id","id");