CREATE TYPE "public"."recurring_execution_state" AS ENUM('pending', 'claimed', 'sent', 'succeeded', 'failed');--> statement-breakpoint
CREATE TYPE "public"."recurring_payout_status" AS ENUM('pending', 'active', 'paused', 'completed', 'cancelled');--> statement-breakpoint
CREATE TABLE "recurring_executions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"recurring_payout_id" uuid NOT NULL,
	"payment_index" integer NOT NULL,
	"request_row_id" uuid NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"state" "recurring_execution_state" DEFAULT 'pending' NOT NULL,
	"claim_token" text,
	"claimed_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"tx_hash" text,
	"sent_at" timestamp with time zone,
	"executed_at" timestamp with time zone,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recurring_payouts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"client_id_id" uuid,
	"origin" text,
	"network" text NOT NULL,
	"chain_id" integer NOT NULL,
	"currency" text NOT NULL,
	"proxy" text NOT NULL,
	"payer" text NOT NULL,
	"token_address" text NOT NULL,
	"payee" text NOT NULL,
	"fee_address" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"fee_amount" numeric(78, 0) NOT NULL,
	"relayer_fee" numeric(78, 0) NOT NULL,
	"period_seconds" integer NOT NULL,
	"first_payment" bigint NOT NULL,
	"total_payments" integer NOT NULL,
	"nonce" numeric(78, 0) NOT NULL,
	"deadline" numeric(78, 0) NOT NULL,
	"strict_order" boolean NOT NULL,
	"frequency" text NOT NULL,
	"start_date" timestamp with time zone NOT NULL,
	"signature" text,
	"status" "recurring_payout_status" DEFAULT 'pending' NOT NULL,
	"processed_payments" integer DEFAULT 0 NOT NULL,
	"failure_count" integer DEFAULT 0 NOT NULL,
	"failure_reason" text,
	"last_payment_at" timestamp with time zone,
	"next_payment_at" timestamp with time zone,
	"reference" text,
	"customer_info" jsonb,
	"activated_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "recurring_executions" ADD CONSTRAINT "recurring_executions_recurring_payout_id_recurring_payouts_id_fk" FOREIGN KEY ("recurring_payout_id") REFERENCES "public"."recurring_payouts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recurring_executions" ADD CONSTRAINT "recurring_executions_request_row_id_requests_id_fk" FOREIGN KEY ("request_row_id") REFERENCES "public"."requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recurring_payouts" ADD CONSTRAINT "recurring_payouts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recurring_payouts" ADD CONSTRAINT "recurring_payouts_client_id_id_client_ids_id_fk" FOREIGN KEY ("client_id_id") REFERENCES "public"."client_ids"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "recurring_executions_recurring_payout_id_payment_index_index" ON "recurring_executions" USING btree ("recurring_payout_id","payment_index");--> statement-breakpoint
CREATE UNIQUE INDEX "recurring_executions_request_row_id_index" ON "recurring_executions" USING btree ("request_row_id");--> statement-breakpoint
CREATE INDEX "recurring_payouts_account_id_created_at_index" ON "recurring_payouts" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "recurring_payouts_status_next_payment_at_index" ON "recurring_payouts" USING btree ("status","next_payment_at");--> statement-breakpoint
CREATE INDEX "recurring_payouts_network_payer_token_address_index" ON "recurring_payouts" USING btree ("network","payer","token_address");