ALTER TABLE "commerce_payments" ADD COLUMN "pay_token" text NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "commerce_payments_pay_token_index" ON "commerce_payments" USING btree ("pay_token");