ALTER TABLE "webhooks" ALTER COLUMN "account_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "orchestrator_id" uuid;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_orchestrator_id_orchestrators_id_fk" FOREIGN KEY ("orchestrator_id") REFERENCES "public"."orchestrators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhooks_orchestrator_url" ON "webhooks" USING btree ("orchestrator_id","url") WHERE "webhooks"."orchestrator_id" is not null;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_one_owner" CHECK (("webhooks"."account_id" is null) <> ("webhooks"."orchestrator_id" is null) and ("webhooks"."orchestrator_id" is null or "webhooks"."client_id_id" is null));