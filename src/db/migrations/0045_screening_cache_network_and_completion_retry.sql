ALTER TABLE "secure_payments" ADD COLUMN "completion_retry_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "screening_results" ADD COLUMN "network" text NOT NULL;