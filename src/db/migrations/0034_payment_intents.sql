CREATE TABLE "payment_intents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"secure_payment_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"network" text NOT NULL,
	"tx_hash" text,
	"safe_tx_hash" text,
	"safe_payment_deadline" timestamp with time zone,
	"payer_address" text,
	"payer_eoa_address" text,
	"smart_account_address" text,
	"user_op_hash" text,
	"leg_count" integer,
	"details" jsonb NOT NULL,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "secure_payments" ADD COLUMN "tracking_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payment_intents" ADD CONSTRAINT "payment_intents_secure_payment_id_secure_payments_id_fk" FOREIGN KEY ("secure_payment_id") REFERENCES "public"."secure_payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payment_intents_secure_payment_id_index" ON "payment_intents" USING btree ("secure_payment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_intents_tracking" ON "payment_intents" USING btree ("secure_payment_id") WHERE "payment_intents"."status" = 'tracking';--> statement-breakpoint
CREATE INDEX "payment_intents_tracked" ON "payment_intents" USING btree ("status") WHERE "payment_intents"."status" = 'tracking';