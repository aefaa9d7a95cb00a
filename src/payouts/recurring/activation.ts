import type { Clock } from '../../base/clock.ts';
import { AppError } from '../../base/errors.ts';
import type { Database } from '../../db/client.ts';
import { MESSAGES, refuseUnlessPending } from './refusals.ts';
import { verifyPermitSignature } from './signature.ts';
import { activate, type RecurringPayoutRow } from './store.ts';

/**
 * The payer's signature stored and the schedule `active` (the 201 body), or the refusal of a
 * schedule that is not pending or of a signature that is not the payer's over its permit.
 */
export async function activateWithSignature(
  deps: { db: Database; clock: Clock },
  row: RecurringPayoutRow,
  permitSignature: string,
  reload: () => Promise<RecurringPayoutRow>,
) {
  refuseUnlessPending(row);
  const signature = await verifyPermitSignature(row, permitSignature);
  if (signature === null) throw new AppError('invalid_signature', MESSAGES.invalidSignature);
  const activated = await activate(deps.db, row, signature, deps.clock.now());
  // Another call activated or cancelled it meanwhile: refused as that state is.
  if (!activated) refuseUnlessPending(await reload());
  return { message: MESSAGES.activated, id: row.id, status: 'active' as const };
}
