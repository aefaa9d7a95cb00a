CREATE TABLE "payers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"client_user_id" text NOT NULL,
	"provider_user_id" text,
	"kyc_status" text DEFAULT 'not_started' NOT NULL,
	"agreement_status" text DEFAULT 'not_started' NOT NULL,
	"kyc_url" text,
	"agreement_url" text,
	"personal" text,
	"key_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"erased_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "payment_details" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"payer_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"provider_account_id" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"currency" text NOT NULL,
	"rails" text DEFAULT 'local' NOT NULL,
	"beneficiary_type" text NOT NULL,
	"personal" text,
	"key_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"erased_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "payers" ADD CONSTRAINT "payers_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_details" ADD CONSTRAINT "payment_details_payer_id_payers_id_fk" FOREIGN KEY ("payer_id") REFERENCES "public"."payers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_details" ADD CONSTRAINT "payment_details_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payers_account_id_client_user_id_index" ON "payers" USING btree ("account_id","client_user_id");--> statement-breakpoint
CREATE INDEX "payers_key_id_index" ON "payers" USING btree ("key_id");--> statement-breakpoint
CREATE INDEX "payment_details_payer_id_created_at_index" ON "payment_details" USING btree ("payer_id","created_at");--> statement-breakpoint
CREATE INDEX "payment_details_key_id_index" ON "payment_details" USING btree ("key_id");