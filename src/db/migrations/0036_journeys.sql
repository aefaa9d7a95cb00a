CREATE TABLE "journey_steps" (
	"id" text PRIMARY KEY NOT NULL,
	"journey_id" text NOT NULL,
	"step_index" integer NOT NULL,
	"processor_id" text NOT NULL,
	"status" text NOT NULL,
	"amount" text NOT NULL,
	"currency" text,
	"tx_reference" text,
	"processed_at" timestamp with time zone NOT NULL,
	"raw_payload" jsonb,
	"next_processor_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "journeys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"request_row_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "journey_steps" ADD CONSTRAINT "journey_steps_journey_id_journeys_id_fk" FOREIGN KEY ("journey_id") REFERENCES "public"."journeys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journeys" ADD CONSTRAINT "journeys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journeys" ADD CONSTRAINT "journeys_request_row_id_requests_id_fk" FOREIGN KEY ("request_row_id") REFERENCES "public"."requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "journey_steps_journey_id_step_index_index" ON "journey_steps" USING btree ("journey_id","step_index");--> statement-breakpoint
CREATE INDEX "journeys_request_row_id_created_at_index" ON "journeys" USING btree ("request_row_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_payment_index" ON "webhook_deliveries" USING btree ("payment_id") WHERE "webhook_deliveries"."payment_id" is not null;