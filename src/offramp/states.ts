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

/**
 * What the provider may report. `retry_required` (api-facts §1.2, the crypto-to-fiat page): a
 * step must be retried. It has no rank of its own: it keeps the transfer where it stands, may
 * come again after the next step, and the step retried (the same state again) moves the
 * transfer on from it.
 */
export const REPORTED_STATES = [...PROGRESSION, 'retry_required', 'failed', 'bounced'] as const;
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
    case 'retry_required':
      throw new Error('retry_required has no rank: it keeps the transfer’s');
    default:
      return PROGRESSION.indexOf(status) + 1;
  }
}
