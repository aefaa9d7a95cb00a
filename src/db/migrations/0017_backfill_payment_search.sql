-- Custom SQL migration file, put your code below! --
-- Payments recorded before they carried their request's search columns (0016) get them here,
-- once: the values searchColumnsOf() writes for new payments.
UPDATE "payments" SET
  "client_id_id" = r."client_id_id",
  "conversion" = r."invoice_currency" <> r."payment_currency",
  "invoice_currency_key" = lower(r."invoice_currency"),
  "payment_currency_key" = lower(r."payment_currency")
FROM "requests" r
WHERE r."id" = "payments"."request_row_id" AND "payments"."invoice_currency_key" IS NULL;
