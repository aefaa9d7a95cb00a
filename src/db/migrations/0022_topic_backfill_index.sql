-- Built in the migration's transaction, so writes to requests wait for it: on a large table, run
-- the upgrade when a pause of a few seconds per million requests is acceptable.
CREATE INDEX "requests_missing_reference_topic_index" ON "requests" USING btree ("id") WHERE "requests"."reference_topic" is null;