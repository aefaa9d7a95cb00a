CREATE TYPE "public"."fee_bearer" AS ENUM('payer', 'recipient');--> statement-breakpoint
CREATE TYPE "public"."fee_config_status" AS ENUM('active', 'disabled');--> statement-breakpoint
CREATE TYPE "public"."fee_flow" AS ENUM('incoming', 'outgoing');--> statement-breakpoint
CREATE TABLE "fee_configs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"orchestrator_id" uuid NOT NULL,
	"client_id_id" uuid,
	"flow" "fee_flow" NOT NULL,
	"fee_bearer" "fee_bearer" NOT NULL,
	"bps" integer NOT NULL,
	"usd_cap" numeric(78, 0),
	"evm_recipient_address" text,
	"tron_recipient_address" text,
	"status" "fee_config_status" DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fee_configs_bps" CHECK ("fee_configs"."bps" between 0 and 10000),
	CONSTRAINT "fee_configs_recipient" CHECK ("fee_configs"."evm_recipient_address" is not null or "fee_configs"."tron_recipient_address" is not null)
);
--> statement-breakpoint
ALTER TABLE "fee_configs" ADD CONSTRAINT "fee_configs_orchestrator_id_orchestrators_id_fk" FOREIGN KEY ("orchestrator_id") REFERENCES "public"."orchestrators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fee_configs" ADD CONSTRAINT "fee_configs_client_id_id_client_ids_id_fk" FOREIGN KEY ("client_id_id") REFERENCES "public"."client_ids"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "fee_configs_default_pair" ON "fee_configs" USING btree ("orchestrator_id","flow","fee_bearer") WHERE "fee_configs"."client_id_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "fee_configs_client_pair" ON "fee_configs" USING btree ("orchestrator_id","client_id_id","flow","fee_bearer") WHERE "fee_configs"."client_id_id" is not null;--> statement-breakpoint
CREATE INDEX "fee_configs_orchestrator_id_created_at_index" ON "fee_configs" USING btree ("orchestrator_id","created_at");