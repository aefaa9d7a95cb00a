import { describe, expect, it } from 'vitest';
import { dueCount, occurrenceDate, shortestPeriodSeconds } from './recurrence.ts';

const iso = (date: Date) => date.toISOString();

describe('occurrenceDate', () => {
  it('counts days and weeks exactly', () => {
    const start = new Date('2026-12-30T09:15:00Z');
    expect(iso(occurrenceDate(start, 'DAILY', 3))).toBe('2027-01-02T09:15:00.000Z');
    expect(iso(occurrenceDate(start, 'WEEKLY', 2))).toBe('2027-01-13T09:15:00.000Z');
  });

  it('clamps months to their last day, counted from the start each time', () => {
    const start = new Date('2027-01-31T12:00:00Z');
    const dates = [0, 1, 2, 3, 13].map((n) => iso(occurrenceDate(start, 'MONTHLY', n)));
    expect(dates).toEqual([
      '2027-01-31T12:00:00.000Z',
      '2027-02-28T12:00:00.000Z',
      '2027-03-31T12:00:00.000Z',
      '2027-04-30T12:00:00.000Z',
      '2028-02-29T12:00:00.000Z',
    ]);
  });

  it('moves 29 February to 28 February in common years', () => {
    const start = new Date('2028-02-29T00:00:00Z');
    expect(iso(occurrenceDate(start, 'YEARLY', 1))).toBe('2029-02-28T00:00:00.000Z');
    expect(iso(occurrenceDate(start, 'YEARLY', 4))).toBe('2032-02-29T00:00:00.000Z');
  });

  it('refuses a negative occurrence', () => {
    expect(() => occurrenceDate(new Date(), 'DAILY', -1)).toThrow(RangeError);
  });
});

describe('shortestPeriodSeconds', () => {
  it('is never longer than a calendar gap, so every date is due on chain', () => {
    const start = new Date('2027-01-31T00:00:00Z');
    for (const frequency of ['MONTHLY', 'YEARLY'] as const) {
      for (let n = 1; n < 60; n += 1) {
        const gap =
          occurrenceDate(start, frequency, n).getTime() -
          occurrenceDate(start, frequency, n - 1).getTime();
        expect(gap).toBeGreaterThanOrEqual(shortestPeriodSeconds(frequency) * 1_000);
        const sinceStart = occurrenceDate(start, frequency, n).getTime() - start.getTime();
        expect(sinceStart).toBeGreaterThanOrEqual(n * shortestPeriodSeconds(frequency) * 1_000);
      }
    }
  });
});

describe('dueCount', () => {
  const start = new Date('2027-01-31T12:00:00Z');

  it('counts the occurrences dated at or before now', () => {
    expect(dueCount(start, 'MONTHLY', new Date('2027-01-31T11:59:59Z'))).toBe(0);
    expect(dueCount(start, 'MONTHLY', start)).toBe(1);
    expect(dueCount(start, 'MONTHLY', new Date('2027-02-28T11:59:59Z'))).toBe(1);
    expect(dueCount(start, 'MONTHLY', new Date('2027-02-28T12:00:00Z'))).toBe(2);
    expect(dueCount(start, 'MONTHLY', new Date('2028-01-31T12:00:00Z'))).toBe(13);
  });

  it('stops at the total', () => {
    expect(dueCount(start, 'DAILY', new Date('2030-01-01T00:00:00Z'), 3)).toBe(3);
  });
});
