ALTER TABLE "webhooks" ADD COLUMN "retry_backoff_seconds" integer;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "retry_max_delay_seconds" integer;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "retry_for_seconds" integer;