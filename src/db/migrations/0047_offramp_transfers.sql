CREATE TABLE "offramp_transfers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"request_row_id" uuid NOT NULL,
	"payer_id" uuid NOT NULL,
	"payment_details_id" uuid NOT NULL,
	"sequence" integer DEFAULT 1 NOT NULL,
	"provider_transfer_id" text NOT NULL,
	"network" text NOT NULL,
	"deposit_address" text NOT NULL,
	"deposit_key" text GENERATED ALWAYS AS (CASE WHEN "deposit_address" LIKE '0x%' THEN lower("deposit_address") ELSE "deposit_address" END) STORED NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"status" text DEFAULT 'awaiting_funds' NOT NULL,
	"rank" integer DEFAULT 0 NOT NULL,
	"tx_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "requests" ADD COLUMN "crypto_to_fiat" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "requests" ADD COLUMN "offramp_status" text;--> statement-breakpoint
ALTER TABLE "offramp_transfers" ADD CONSTRAINT "offramp_transfers_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offramp_transfers" ADD CONSTRAINT "offramp_transfers_request_row_id_requests_id_fk" FOREIGN KEY ("request_row_id") REFERENCES "public"."requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offramp_transfers" ADD CONSTRAINT "offramp_transfers_payer_id_payers_id_fk" FOREIGN KEY ("payer_id") REFERENCES "public"."payers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offramp_transfers" ADD CONSTRAINT "offramp_transfers_payment_details_id_payment_details_id_fk" FOREIGN KEY ("payment_details_id") REFERENCES "public"."payment_details"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "offramp_transfers_request_row_id_payment_details_id_sequence_index" ON "offramp_transfers" USING btree ("request_row_id","payment_details_id","sequence");--> statement-breakpoint
CREATE UNIQUE INDEX "offramp_transfers_provider_transfer_id_index" ON "offramp_transfers" USING btree ("provider_transfer_id");--> statement-breakpoint
CREATE INDEX "offramp_transfers_network_deposit_key_index" ON "offramp_transfers" USING btree ("network","deposit_key");