ALTER TABLE "requests" DROP CONSTRAINT "requests_account_id_accounts_id_fk";
--> statement-breakpoint
ALTER TABLE "requests" DROP CONSTRAINT "requests_client_id_id_client_ids_id_fk";
--> statement-breakpoint
ALTER TABLE "requests" DROP CONSTRAINT "requests_secure_payment_id_secure_payments_id_fk";
--> statement-breakpoint
ALTER TABLE "requests" DROP CONSTRAINT "requests_destination_id_payee_destinations_id_fk";
--> statement-breakpoint
ALTER TABLE "secure_payments" DROP CONSTRAINT "secure_payments_account_id_accounts_id_fk";
--> statement-breakpoint
ALTER TABLE "secure_payments" DROP CONSTRAINT "secure_payments_client_id_id_client_ids_id_fk";
--> statement-breakpoint
DROP INDEX "requests_network_payment_reference_index";--> statement-breakpoint
DROP INDEX "requests_network_reference_topic_index";--> statement-breakpoint
CREATE UNIQUE INDEX "requests_network_reference_topic_index" ON "requests" USING btree ("network","reference_topic");