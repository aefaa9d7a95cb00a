CREATE TYPE "public"."secure_payment_status" AS ENUM('pending', 'completed', 'expired', 'invalidated', 'compliance_failed');--> statement-breakpoint
CREATE TABLE "destination_nonces" (
	"nonce" text PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"action" text NOT NULL,
	"wallet_address" text NOT NULL,
	"chain_id" integer NOT NULL,
	"token_address" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payee_destinations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"destination_id" text NOT NULL,
	"wallet_address" text NOT NULL,
	"chain_id" integer NOT NULL,
	"network" text NOT NULL,
	"token_address" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"request_id" text NOT NULL,
	"account_id" uuid NOT NULL,
	"client_id_id" uuid,
	"secure_payment_id" uuid,
	"position" integer,
	"network" text NOT NULL,
	"invoice_currency" text NOT NULL,
	"payment_currency" text NOT NULL,
	"expected_amount" numeric(78, 0) NOT NULL,
	"payee" text NOT NULL,
	"payer" text,
	"destination_id" uuid,
	"reference" text,
	"customer_info" jsonb,
	"salt" text NOT NULL,
	"payment_reference" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"total_amount_paid" numeric(78, 0) DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "secure_payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token" text NOT NULL,
	"account_id" uuid NOT NULL,
	"client_id_id" uuid,
	"payout" boolean DEFAULT false NOT NULL,
	"status" "secure_payment_status" DEFAULT 'pending' NOT NULL,
	"network" text NOT NULL,
	"reference" text,
	"payer_identifier" text,
	"redirect_url" text,
	"redirect_label" text,
	"expires_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "client_ids" ADD COLUMN "payee_destination_id" uuid;--> statement-breakpoint
ALTER TABLE "destination_nonces" ADD CONSTRAINT "destination_nonces_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payee_destinations" ADD CONSTRAINT "payee_destinations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "requests" ADD CONSTRAINT "requests_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "requests" ADD CONSTRAINT "requests_client_id_id_client_ids_id_fk" FOREIGN KEY ("client_id_id") REFERENCES "public"."client_ids"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "requests" ADD CONSTRAINT "requests_secure_payment_id_secure_payments_id_fk" FOREIGN KEY ("secure_payment_id") REFERENCES "public"."secure_payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "requests" ADD CONSTRAINT "requests_destination_id_payee_destinations_id_fk" FOREIGN KEY ("destination_id") REFERENCES "public"."payee_destinations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "secure_payments" ADD CONSTRAINT "secure_payments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "secure_payments" ADD CONSTRAINT "secure_payments_client_id_id_client_ids_id_fk" FOREIGN KEY ("client_id_id") REFERENCES "public"."client_ids"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payee_destinations_account_id_wallet_address_index" ON "payee_destinations" USING btree ("account_id","wallet_address");--> statement-breakpoint
CREATE UNIQUE INDEX "payee_destinations_account_id_destination_id_index" ON "payee_destinations" USING btree ("account_id","destination_id");--> statement-breakpoint
CREATE UNIQUE INDEX "requests_request_id_index" ON "requests" USING btree ("request_id");--> statement-breakpoint
CREATE UNIQUE INDEX "requests_network_payment_reference_index" ON "requests" USING btree ("network","payment_reference");--> statement-breakpoint
CREATE INDEX "requests_account_id_created_at_index" ON "requests" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "requests_secure_payment_id_index" ON "requests" USING btree ("secure_payment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "secure_payments_token_index" ON "secure_payments" USING btree ("token");--> statement-breakpoint
CREATE INDEX "secure_payments_account_id_created_at_index" ON "secure_payments" USING btree ("account_id","created_at");--> statement-breakpoint
ALTER TABLE "client_ids" ADD CONSTRAINT "client_ids_payee_destination_id_payee_destinations_id_fk" FOREIGN KEY ("payee_destination_id") REFERENCES "public"."payee_destinations"("id") ON DELETE no action ON UPDATE no action;