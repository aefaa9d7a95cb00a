CREATE TYPE "public"."client_id_status" AS ENUM('active', 'inactive', 'revoked');--> statement-breakpoint
CREATE TYPE "public"."orchestrator_link_status" AS ENUM('active', 'unlinked');--> statement-breakpoint
CREATE TABLE "accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"label" text,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "client_ids" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"client_id" text NOT NULL,
	"label" text NOT NULL,
	"allowed_domains" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" "client_id_status" DEFAULT 'active' NOT NULL,
	"fee_percentage" numeric(5, 2),
	"fee_address" text,
	"operator_wallet_address" text,
	"default_pre_approval_expiry" integer,
	"default_authorization_expiry" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "orchestrator_client_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"orchestrator_id" uuid NOT NULL,
	"client_id_id" uuid NOT NULL,
	"status" "orchestrator_link_status" DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"unlinked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "orchestrator_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"orchestrator_id" uuid NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "orchestrators" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_ids" ADD CONSTRAINT "client_ids_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orchestrator_client_links" ADD CONSTRAINT "orchestrator_client_links_orchestrator_id_orchestrators_id_fk" FOREIGN KEY ("orchestrator_id") REFERENCES "public"."orchestrators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orchestrator_client_links" ADD CONSTRAINT "orchestrator_client_links_client_id_id_client_ids_id_fk" FOREIGN KEY ("client_id_id") REFERENCES "public"."client_ids"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orchestrator_keys" ADD CONSTRAINT "orchestrator_keys_orchestrator_id_orchestrators_id_fk" FOREIGN KEY ("orchestrator_id") REFERENCES "public"."orchestrators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_prefix_index" ON "api_keys" USING btree ("prefix");--> statement-breakpoint
CREATE INDEX "api_keys_account_id_index" ON "api_keys" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "client_ids_client_id_index" ON "client_ids" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "client_ids_account_id_index" ON "client_ids" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orchestrator_client_links_client_id_id_index" ON "orchestrator_client_links" USING btree ("client_id_id");--> statement-breakpoint
CREATE INDEX "orchestrator_client_links_orchestrator_id_index" ON "orchestrator_client_links" USING btree ("orchestrator_id");--> statement-breakpoint
CREATE INDEX "orchestrator_keys_prefix_index" ON "orchestrator_keys" USING btree ("prefix");