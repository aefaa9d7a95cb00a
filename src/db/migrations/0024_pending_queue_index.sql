-- The claim's index keeps only the queue (pending rows). Built in the migration's transaction,
-- which reads the whole table once: writes to the outbox wait for it.
DROP INDEX "webhook_deliveries_status_next_attempt_at_index";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_index" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';