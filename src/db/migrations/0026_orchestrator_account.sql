ALTER TABLE "orchestrators" ADD COLUMN "account_id" uuid;--> statement-breakpoint
ALTER TABLE "orchestrators" ADD COLUMN "support_email" text;--> statement-breakpoint
ALTER TABLE "orchestrators" ADD CONSTRAINT "orchestrators_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "orchestrators_account_id_index" ON "orchestrators" USING btree ("account_id") WHERE "orchestrators"."account_id" is not null;