CREATE TABLE "client_id_link_intents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"orchestrator_id" uuid NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"client_id_name" text NOT NULL,
	"allowed_domains" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"external_id" text,
	"kyt_plan" jsonb,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"client_id_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "orchestrator_client_links" ADD COLUMN "kyt_plan" jsonb;--> statement-breakpoint
ALTER TABLE "client_id_link_intents" ADD CONSTRAINT "client_id_link_intents_orchestrator_id_orchestrators_id_fk" FOREIGN KEY ("orchestrator_id") REFERENCES "public"."orchestrators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_id_link_intents" ADD CONSTRAINT "client_id_link_intents_client_id_id_client_ids_id_fk" FOREIGN KEY ("client_id_id") REFERENCES "public"."client_ids"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "client_id_link_intents_prefix_index" ON "client_id_link_intents" USING btree ("prefix");--> statement-breakpoint
CREATE UNIQUE INDEX "client_id_link_intents_key_hash_index" ON "client_id_link_intents" USING btree ("key_hash");