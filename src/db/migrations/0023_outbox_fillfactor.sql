-- Half of each new page of the outbox stays free, so the dispatcher's claim (which sets the lease
-- and counts the attempt, no indexed column) writes the row's new version beside the old one, a
-- HOT update: no entry in any of the table's four indexes (unless a page is full after all: a
-- lease makes a row 8 bytes longer). Pages already written keep theirs.
ALTER TABLE "webhook_deliveries" SET (fillfactor = 50);
