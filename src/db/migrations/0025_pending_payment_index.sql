-- A reorganisation cancels a payment's pending deliveries, the only reader of this index: it keeps
-- the queue's rows only, so a record (which moves a row out of the queue, a change the update
-- cannot make in place) writes an entry in two of the table's indexes, not three.
DROP INDEX "webhook_deliveries_payment_id_index";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_payment_index" ON "webhook_deliveries" USING btree ("payment_id") WHERE "webhook_deliveries"."status" = 'pending';
