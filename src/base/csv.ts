/**
 * CSV as RFC 4180 writes it (fields joined by commas, records ended by CRLF, a field quoted when
 * it holds a comma, a quote or a line break, its quotes doubled), made safe to open in a
 * spreadsheet: a field that starts with `=`, `+`, `-`, `@`, a tab or a carriage return would be
 * read as a formula (CSV injection, OWASP), so it is prefixed with `'`, which spreadsheets show
 * as text. Our own values never start so; a merchant reference or a payer's data may.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: string | null): string {
  if (value === null) return '';
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function csvRecord(values: readonly (string | null)[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
