/**
 * The calendar of recurring payouts and recurring requests. Occurrence n (0-based) falls on the
 * start date plus n periods, each counted from the start date (never from the previous
 * occurrence), at the start's time of day in UTC. A month or year that lacks the start's day
 * takes its last day: a schedule starting 31 January falls on 28 (or 29) February, 31 March,
 * 30 April; one starting 29 February falls on 28 February in common years.
 */
export const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

const DAY_MS = 86_400_000;

/** The date of occurrence `n` (0 is the start). */
export function occurrenceDate(start: Date, frequency: Frequency, n: number): Date {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`occurrence ${n}`);
  switch (frequency) {
    case 'DAILY':
      return new Date(start.getTime() + n * DAY_MS);
    case 'WEEKLY':
      return new Date(start.getTime() + n * 7 * DAY_MS);
    case 'MONTHLY':
      return addMonths(start, n);
    case 'YEARLY':
      return addMonths(start, 12 * n);
  }
}

function addMonths(start: Date, months: number): Date {
  const monthIndex = start.getUTCMonth() + months;
  const year = start.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = monthIndex % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const timeOfDay =
    start.getTime() - Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
  return new Date(Date.UTC(year, month, Math.min(start.getUTCDate(), lastDay)) + timeOfDay);
}

/**
 * The shortest gap between two occurrences of a frequency, in seconds: what an on-chain
 * schedule with a fixed period may use so that every calendar date is already due on chain
 * (a month is at least 28 days, a year at least 365).
 */
export function shortestPeriodSeconds(frequency: Frequency): number {
  const days = { DAILY: 1, WEEKLY: 7, MONTHLY: 28, YEARLY: 365 }[frequency];
  return days * 86_400;
}

/** How many occurrences are due at `now` (those dated at or before it), capped at `total`. */
export function dueCount(start: Date, frequency: Frequency, now: Date, total = Infinity): number {
  if (now < start) return 0;
  // An estimate from the shortest period, then stepped to the exact calendar count.
  let n = Math.min(
    total,
    Math.floor((now.getTime() - start.getTime()) / (shortestPeriodSeconds(frequency) * 1_000)) + 1,
  );
  while (n > 0 && occurrenceDate(start, frequency, n - 1) > now) n -= 1;
  while (n < total && occurrenceDate(start, frequency, n) <= now) n += 1;
  return n;
}
