ALTER TABLE "commerce_actions" ADD COLUMN "nonce" integer;--> statement-breakpoint
CREATE INDEX "commerce_actions_status_index" ON "commerce_actions" USING btree ("status");