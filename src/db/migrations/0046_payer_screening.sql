CREATE TABLE "access_rejections" (
	"secure_payment_id" uuid NOT NULL,
	"wallet" text NOT NULL,
	"notified_at" timestamp with time zone NOT NULL,
	"delivery_ids" text[] NOT NULL,
	CONSTRAINT "access_rejections_secure_payment_id_wallet_pk" PRIMARY KEY("secure_payment_id","wallet")
);
--> statement-breakpoint
CREATE TABLE "screening_results" (
	"id" uuid PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"provider" text NOT NULL,
	"policy_id" text,
	"network" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"secure_payment_id" uuid,
	"stage" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "secure_payments" ADD COLUMN "screening" jsonb;--> statement-breakpoint
ALTER TABLE "secure_payments" ADD COLUMN "completion_screened_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "secure_payments" ADD COLUMN "completion_retry_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "screening_results_wallet_provider_created_at_index" ON "screening_results" USING btree ("wallet","provider","created_at");--> statement-breakpoint
CREATE INDEX "screening_results_secure_payment_id_index" ON "screening_results" USING btree ("secure_payment_id");