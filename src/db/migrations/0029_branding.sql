CREATE TABLE "brandings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"orchestrator_id" uuid NOT NULL,
	"client_id_id" uuid,
	"logo_path" text,
	"page_background_color" text,
	"card_background_color" text,
	"primary_action_color" text,
	"primary_text_color" text,
	"secondary_text_color" text,
	"terms_path" text,
	"privacy_path" text,
	"display_request_branding" boolean,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "brandings" ADD CONSTRAINT "brandings_orchestrator_id_orchestrators_id_fk" FOREIGN KEY ("orchestrator_id") REFERENCES "public"."orchestrators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "brandings" ADD CONSTRAINT "brandings_client_id_id_client_ids_id_fk" FOREIGN KEY ("client_id_id") REFERENCES "public"."client_ids"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "brandings_one_per_orchestrator" ON "brandings" USING btree ("orchestrator_id") WHERE "brandings"."client_id_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "brandings_one_per_client_id" ON "brandings" USING btree ("client_id_id") WHERE "brandings"."client_id_id" is not null;