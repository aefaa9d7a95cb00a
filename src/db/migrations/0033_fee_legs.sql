CREATE TABLE "fee_leg_payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"fee_leg_id" uuid NOT NULL,
	"network" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"payer_address" text,
	"timestamp" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fee_legs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"request_row_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"fee_request_id" text NOT NULL,
	"type" text NOT NULL,
	"label" text NOT NULL,
	"fee_bearer" text NOT NULL,
	"network" text NOT NULL,
	"currency" text NOT NULL,
	"recipient" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"salt" text NOT NULL,
	"payment_reference" text NOT NULL,
	"reference_topic" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fee_legs_amount" CHECK ("fee_legs"."amount" > 0)
);
--> statement-breakpoint
ALTER TABLE "requests" ADD COLUMN "payee_borne_fees" numeric(78, 0) DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "fee_leg_payments" ADD CONSTRAINT "fee_leg_payments_fee_leg_id_fee_legs_id_fk" FOREIGN KEY ("fee_leg_id") REFERENCES "public"."fee_legs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fee_legs" ADD CONSTRAINT "fee_legs_request_row_id_requests_id_fk" FOREIGN KEY ("request_row_id") REFERENCES "public"."requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "fee_leg_payments_network_tx_hash_log_index_index" ON "fee_leg_payments" USING btree ("network","tx_hash","log_index");--> statement-breakpoint
CREATE INDEX "fee_leg_payments_fee_leg_id_index" ON "fee_leg_payments" USING btree ("fee_leg_id");--> statement-breakpoint
CREATE INDEX "fee_leg_payments_network_block_number_index" ON "fee_leg_payments" USING btree ("network","block_number");--> statement-breakpoint
CREATE UNIQUE INDEX "fee_legs_request_row_id_position_index" ON "fee_legs" USING btree ("request_row_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "fee_legs_network_reference_topic_index" ON "fee_legs" USING btree ("network","reference_topic");