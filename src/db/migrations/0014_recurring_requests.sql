CREATE TABLE "request_schedules" (
	"request_row_id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"start_date" timestamp with time zone NOT NULL,
	"frequency" text NOT NULL,
	"stopped" boolean DEFAULT false NOT NULL,
	"next_occurrence" integer DEFAULT 1 NOT NULL,
	"next_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "requests" ADD COLUMN "original_request_id" text;--> statement-breakpoint
ALTER TABLE "requests" ADD COLUMN "original_request_payment_reference" text;--> statement-breakpoint
ALTER TABLE "requests" ADD COLUMN "occurrence" integer;--> statement-breakpoint
ALTER TABLE "request_schedules" ADD CONSTRAINT "request_schedules_request_row_id_requests_id_fk" FOREIGN KEY ("request_row_id") REFERENCES "public"."requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "request_schedules" ADD CONSTRAINT "request_schedules_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "request_schedules_next_at_index" ON "request_schedules" USING btree ("next_at") WHERE "request_schedules"."stopped" = false;--> statement-breakpoint
CREATE UNIQUE INDEX "requests_original_request_id_occurrence_index" ON "requests" USING btree ("original_request_id","occurrence");