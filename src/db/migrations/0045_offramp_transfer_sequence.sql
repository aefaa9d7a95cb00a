DROP INDEX "offramp_transfers_request_row_id_payment_details_id_index";--> statement-breakpoint
ALTER TABLE "offramp_transfers" ADD COLUMN "sequence" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "offramp_transfers_request_row_id_payment_details_id_sequence_index" ON "offramp_transfers" USING btree ("request_row_id","payment_details_id","sequence");