import { AppError } from '../../base/errors.ts';
import type { Database } from '../../db/client.ts';
import type { LinkScope } from '../../http/principal.ts';
import { findByPayToken, findRecurringPayout, type RecurringPayoutRow } from './store.ts';

/**
 * Finding the schedule a call names, and refusing a call its state does not allow, in the
 * reference API's exact words (api-facts §4.2).
 */

export const MESSAGES = {
  notFound: 'Recurring payment not found',
  invalidSignature: 'Invalid signature provided',
  alreadyActive: 'Recurring payment is already active',
  alreadyCancelled: 'Recurring payment is already cancelled',
  alreadyCompleted: 'Recurring payment is already completed',
  cannotCancelCompleted: 'Cannot cancel a completed recurring payment',
  notPaused: 'Recurring payment is not paused',
  activated: 'Recurring payment activated',
} as const;

export const PAYER_MISMATCH_MESSAGE =
  'Only the payer of this recurring payout (recurrence.payer) can approve and sign it';

const notFound = () => new AppError('recurring_payout_not_found', MESSAGES.notFound);
export const notPaused = () => new AppError('recurring_payout_not_paused', MESSAGES.notPaused);

/** The account's schedule by its id; another account's answers the same 404 as none. */
export async function loadRecurringPayout(
  db: Database,
  accountId: string,
  id: string,
): Promise<RecurringPayoutRow> {
  const row = await findRecurringPayout(db, accountId, id);
  if (!row) throw notFound();
  return row;
}

/** The schedule of a pay token, in the caller's scope (the pay page's reaches any account's). */
export async function loadByPayToken(
  db: Database,
  scope: LinkScope,
  token: string,
): Promise<RecurringPayoutRow> {
  const row = await findByPayToken(db, scope, token);
  if (!row) throw notFound();
  return row;
}

export function refuseUnlessPending(row: RecurringPayoutRow): void {
  switch (row.status) {
    case 'pending':
      return;
    case 'active':
    case 'paused':
      throw new AppError('recurring_payout_already_active', MESSAGES.alreadyActive);
    case 'cancelled':
      throw new AppError('recurring_payout_cancelled', MESSAGES.alreadyCancelled);
    case 'completed':
      throw new AppError('recurring_payout_completed', MESSAGES.alreadyCompleted);
  }
}

export function refuseCancel(row: RecurringPayoutRow): void {
  if (row.status === 'cancelled') {
    throw new AppError('recurring_payout_cancelled', MESSAGES.alreadyCancelled);
  }
  if (row.status === 'completed') {
    throw new AppError('recurring_payout_completed', MESSAGES.cannotCancelCompleted);
  }
}

/** A cancelled or completed schedule pulls nothing more: no approval is offered for it. */
export function refuseEnded(row: RecurringPayoutRow): void {
  if (row.status === 'cancelled') {
    throw new AppError('recurring_payout_cancelled', MESSAGES.alreadyCancelled);
  }
  if (row.status === 'completed') {
    throw new AppError('recurring_payout_completed', MESSAGES.alreadyCompleted);
  }
}
