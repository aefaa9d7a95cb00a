import { and, eq, inArray } from 'drizzle-orm';
import { AppError, ValidationError } from '../base/errors.ts';
import { dueCount, type Frequency, occurrenceDate } from '../base/recurrence.ts';
import type { Database } from '../db/client.ts';
import { requestSchedules, requests } from '../db/schema.ts';
import type { RequestRow } from './requests.ts';

/**
 * Recurring requests: `POST /v2/request` with `recurrence` makes the original (occurrence 0,
 * dated `startDate`) and its schedule; the generator (occurrences.ts) makes the others on their
 * calendar dates (src/base/recurrence.ts); `PATCH /v2/request/{id}` stops and resumes the schedule.
 */

/**
 * How far before now `startDate` may lie and still count as "not in the past": a client that
 * sends today's date as its own local midnight is up to a day behind UTC (UTC+14 at 23:59).
 */
const START_DATE_GRACE_MS = 24 * 60 * 60_000;

const START_DATE_FORMAT_MESSAGE =
  'must be an ISO 8601 date or date-time with a time zone, such as 2026-12-01 or 2026-12-01T09:00:00Z';
const START_DATE_PAST_MESSAGE = 'must not be in the past';

/** `YYYY-MM-DD`, or that with a time and a zone (`Z` or `±hh:mm`). */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * The instant a `startDate` names, or null when it is not a real calendar date and time (the
 * `Date` parser would roll 30 February over to March; this refuses it). A date alone is
 * midnight UTC.
 */
export function parseStartDate(value: string): Date | null {
  const match = ISO_DATE_TIME.exec(value);
  if (!match) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > lastDay) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const [oh, om] = zone.slice(1).split(':').map(Number) as [number, number];
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (oh * 60 + om);
  }
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(Number(h), Number(mi), Number(s), Number(fraction.slice(0, 3).padEnd(3, '0')));
  return new Date(utc.getTime() - offsetMinutes * 60_000);
}

export interface Recurrence {
  readonly startDate: Date;
  readonly frequency: Frequency;
}

/** `recurrence` of a create body, checked against the clock; a 400 naming the field. */
export function recurrenceOf(
  input: { readonly startDate: string; readonly frequency: Frequency },
  now: Date,
): Recurrence {
  const startDate = parseStartDate(input.startDate);
  if (startDate === null)
    throw new ValidationError([
      { field: 'recurrence.startDate', message: START_DATE_FORMAT_MESSAGE },
    ]);
  if (startDate.getTime() < now.getTime() - START_DATE_GRACE_MS)
    throw new ValidationError([
      { field: 'recurrence.startDate', message: START_DATE_PAST_MESSAGE },
    ]);
  return { startDate, frequency: input.frequency };
}

/** The schedule of a new original (written in the transaction that writes the original). */
export async function insertSchedule(
  db: Database,
  original: RequestRow,
  recurrence: Recurrence,
  now: Date,
): Promise<void> {
  await db.insert(requestSchedules).values({
    requestRowId: original.id,
    accountId: original.accountId,
    startDate: recurrence.startDate,
    frequency: recurrence.frequency,
    nextOccurrence: 1,
    nextAt: occurrenceDate(recurrence.startDate, recurrence.frequency, 1),
    updatedAt: now,
  });
}

/** What the status record says of a request's series (null: it recurs not at all). */
export interface Series {
  /** The original's `requestId`. */
  readonly originalRequestId: string;
  readonly recurrence: { readonly startDate: string; readonly frequency: Frequency };
  readonly stopped: boolean;
}

/**
 * The series of each row that has one, by the row's `requestId`: an original's own schedule, an
 * occurrence's original's. One query for the whole page.
 */
export async function seriesOf(
  db: Database,
  accountId: string,
  rows: readonly RequestRow[],
): Promise<Map<string, Series>> {
  const originals = new Set<string>();
  for (const row of rows) originals.add(row.originalRequestId ?? row.requestId);
  if (originals.size === 0) return new Map();
  const found = await db
    .select({ requestId: requests.requestId, schedule: requestSchedules })
    .from(requestSchedules)
    .innerJoin(requests, eq(requests.id, requestSchedules.requestRowId))
    .where(
      and(eq(requestSchedules.accountId, accountId), inArray(requests.requestId, [...originals])),
    );
  const byOriginal = new Map<string, Series>(
    found.map(({ requestId, schedule }) => [
      requestId,
      {
        originalRequestId: requestId,
        recurrence: {
          startDate: schedule.startDate.toISOString(),
          frequency: schedule.frequency,
        },
        stopped: schedule.stopped,
      },
    ]),
  );
  const series = new Map<string, Series>();
  for (const row of rows) {
    const found = byOriginal.get(row.originalRequestId ?? row.requestId);
    if (found) series.set(row.requestId, found);
  }
  return series;
}

/**
 * `PATCH /v2/request/{id}` `{isRecurrenceStopped}`. On an occurrence it acts on its series.
 * Stopping keeps the schedule where it is; resuming moves it to the first occurrence dated
 * after `now`, so what fell due while stopped is skipped, never back-filled.
 */
export async function setRecurrenceStopped(
  db: Database,
  row: RequestRow,
  stopped: boolean,
  now: Date,
): Promise<void> {
  const originalRequestId = row.originalRequestId ?? row.requestId;
  await db.transaction(async (tx) => {
    const [found] = await tx
      .select({ schedule: requestSchedules })
      .from(requestSchedules)
      .innerJoin(requests, eq(requests.id, requestSchedules.requestRowId))
      .where(
        and(
          eq(requestSchedules.accountId, row.accountId),
          eq(requests.requestId, originalRequestId),
        ),
      )
      .for('update', { of: requestSchedules });
    if (!found)
      throw new AppError('request_not_recurring', `Request ${row.requestId} is not recurring`);
    const { schedule } = found;
    if (schedule.stopped === stopped) return;
    const next = stopped
      ? schedule.nextOccurrence
      : Math.max(schedule.nextOccurrence, dueCount(schedule.startDate, schedule.frequency, now));
    await tx
      .update(requestSchedules)
      .set({
        stopped,
        nextOccurrence: next,
        nextAt: occurrenceDate(schedule.startDate, schedule.frequency, next),
        updatedAt: now,
      })
      .where(eq(requestSchedules.requestRowId, schedule.requestRowId));
  });
}
