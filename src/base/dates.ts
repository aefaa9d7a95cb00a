/**
 * Date-times at the HTTP edge: ISO 8601 with a time zone, since a bare local time means a
 * different instant on every server. Dates that do not exist (2026-02-30) are refused rather
 * than rolled over.
 */

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

export function parseDateTime(value: string, options: { utcOnly?: boolean } = {}): Date | null {
  const match = DATE_TIME.exec(value);
  if (!match) return null;
  if (options.utcOnly && match[7] !== 'Z') return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as number[];
  const fields = new Date(
    Date.UTC(year ?? 0, (month ?? 0) - 1, day ?? 0, hour ?? 0, minute ?? 0, second ?? 0),
  );
  const exists =
    fields.getUTCFullYear() === year &&
    fields.getUTCMonth() === (month ?? 0) - 1 &&
    fields.getUTCDate() === day &&
    fields.getUTCHours() === hour &&
    fields.getUTCMinutes() === minute &&
    fields.getUTCSeconds() === second;
  const date = new Date(value);
  return exists && !Number.isNaN(date.getTime()) ? date : null;
}

/** A Unix time in seconds (a block's or a contract's) as an ISO 8601 UTC timestamp. */
export function isoFromSeconds(seconds: number | bigint): string {
  return new Date(Number(seconds) * 1000).toISOString();
}
