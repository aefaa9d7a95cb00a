CREATE TABLE "safe_transactions" (
	"safe_tx_hash" text PRIMARY KEY NOT NULL,
	"secure_payment_id" uuid NOT NULL,
	"network" text NOT NULL,
	"safe_address" text NOT NULL,
	"nonce" numeric(78, 0) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payment_intents" ADD COLUMN "scan_from_block" bigint;--> statement-breakpoint
ALTER TABLE "safe_transactions" ADD CONSTRAINT "safe_transactions_secure_payment_id_secure_payments_id_fk" FOREIGN KEY ("secure_payment_id") REFERENCES "public"."secure_payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "safe_transactions_secure_payment_id_index" ON "safe_transactions" USING btree ("secure_payment_id");