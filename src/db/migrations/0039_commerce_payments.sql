CREATE TABLE "commerce_actions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"commerce_payment_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"fee_bps" integer,
	"fee_receiver" text,
	"reason" text,
	"status" text NOT NULL,
	"tx_hash" text,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "commerce_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"commerce_payment_id" uuid NOT NULL,
	"type" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"network" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"block_time" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "commerce_payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"request_id" text NOT NULL,
	"account_id" uuid NOT NULL,
	"client_id_id" uuid,
	"origin" text,
	"merchant_id" text NOT NULL,
	"network" text NOT NULL,
	"chain_id" integer NOT NULL,
	"currency" text NOT NULL,
	"token_address" text NOT NULL,
	"wrapper" text NOT NULL,
	"escrow" text NOT NULL,
	"merchant" text NOT NULL,
	"payer" text,
	"operator" text NOT NULL,
	"token_collector" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"max_amount" numeric(78, 0) NOT NULL,
	"pre_approval_expiry" bigint NOT NULL,
	"authorization_expiry" bigint NOT NULL,
	"refund_expiry" bigint NOT NULL,
	"payment_reference" text NOT NULL,
	"commerce_payment_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "commerce_actions" ADD CONSTRAINT "commerce_actions_commerce_payment_id_commerce_payments_id_fk" FOREIGN KEY ("commerce_payment_id") REFERENCES "public"."commerce_payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commerce_events" ADD CONSTRAINT "commerce_events_commerce_payment_id_commerce_payments_id_fk" FOREIGN KEY ("commerce_payment_id") REFERENCES "public"."commerce_payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "commerce_actions_commerce_payment_id_index" ON "commerce_actions" USING btree ("commerce_payment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "commerce_events_network_tx_hash_log_index_index" ON "commerce_events" USING btree ("network","tx_hash","log_index");--> statement-breakpoint
CREATE INDEX "commerce_events_commerce_payment_id_block_number_index" ON "commerce_events" USING btree ("commerce_payment_id","block_number");--> statement-breakpoint
CREATE UNIQUE INDEX "commerce_payments_request_id_index" ON "commerce_payments" USING btree ("request_id");--> statement-breakpoint
CREATE UNIQUE INDEX "commerce_payments_network_payment_reference_index" ON "commerce_payments" USING btree ("network","payment_reference");--> statement-breakpoint
CREATE INDEX "commerce_payments_account_id_id_index" ON "commerce_payments" USING btree ("account_id","id");