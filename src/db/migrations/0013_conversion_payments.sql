ALTER TABLE "payments" ADD COLUMN "request_amount" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "request_fee_amount" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "amount_in_usd" numeric(78, 0);