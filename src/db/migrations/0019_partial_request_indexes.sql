DROP INDEX "requests_original_request_id_occurrence_index";--> statement-breakpoint
DROP INDEX "requests_client_id_id_created_at_id_index";--> statement-breakpoint
DROP INDEX "requests_account_id_reference_index";--> statement-breakpoint
CREATE UNIQUE INDEX "requests_original_request_id_occurrence_index" ON "requests" USING btree ("original_request_id","occurrence") WHERE "requests"."original_request_id" is not null;--> statement-breakpoint
CREATE INDEX "requests_client_id_id_created_at_id_index" ON "requests" USING btree ("client_id_id","created_at","id") WHERE "requests"."client_id_id" is not null;--> statement-breakpoint
CREATE INDEX "requests_account_id_reference_index" ON "requests" USING btree ("account_id","reference") WHERE "requests"."reference" is not null;