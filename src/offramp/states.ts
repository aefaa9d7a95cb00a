import type { OfframpStatus } from '../db/schema.ts';

/**
 * The order of an off-ramp transfer's states: a report moves a transfer only to a higher rank,
 * and never out of an end (`fiat_sent`, `failed`, `bounced`), so a late, repeated or reordered
 * callback changes nothing and sends no event twice.
 */

/** The normal progression the provider reports, in order (api-facts §1.2). */
const PROGRESSION = [
  'initiated',
  'pending_internal_assessment',
  'ongoing_checks',
  'sending_fiat',
  'fiat_sent',
] as const;

/** What the provider may report. */
export const REPORTED_STATES = [...PROGRESSION, 'failed', 'bounced'] as const;
export type ReportedState = (typeof REPORTED_STATES)[number];

export function isReportedState(value: string): value is ReportedState {
  return (REPORTED_STATES as readonly string[]).includes(value);
}

/** The ends: nothing moves a transfer out of one. */
export const FINAL_RANK = 100;

export function rankOf(status: OfframpStatus): number {
  switch (status) {
    case 'awaiting_funds':
      return 0;
    case 'fiat_sent':
    case 'failed':
    case 'bounced':
      return FINAL_RANK;
    default:
      return PROGRESSION.indexOf(status) + 1;
  }
}
