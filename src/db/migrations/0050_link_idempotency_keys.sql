ALTER TABLE "secure_payments" ADD COLUMN "idempotency_scope" text;--> statement-breakpoint
ALTER TABLE "secure_payments" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "secure_payments" ADD COLUMN "idempotency_hash" text;--> statement-breakpoint
CREATE UNIQUE INDEX "secure_payments_idempotency_key_index" ON "secure_payments" USING btree ("idempotency_scope","idempotency_key") WHERE "secure_payments"."idempotency_key" is not null;