import { and, eq, isNotNull, lt, lte, ne, or } from 'drizzle-orm';
import { type Static, Type } from 'typebox';
import type { Clock } from '../base/clock.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { offrampTransfers, requests } from '../db/schema.ts';
import { reversePayment } from '../requests/settle.ts';
import { depositPayment, enqueueOfframpEvents } from './events.ts';
import { FINAL_RANK, isReportedState, REPORTED_STATES, rankOf } from './states.ts';
import type { TransferRow } from './transfers.ts';

/**
 * A provider's callback (`POST /v2/offramp/callbacks`, signature checked by the route): the
 * transfer moves to the reported state only when that is further on (states.ts) and it has not
 * ended, in one conditional UPDATE, and the events of the move are written with it. A
 * duplicate, a late or a reordered callback changes nothing and sends nothing.
 */

export const CallbackBody = Type.Object(
  {
    event_id: Type.String({ minLength: 1, maxLength: 200 }),
    event_type: Type.String({ minLength: 1, maxLength: 100 }),
    data: Type.Object(
      {
        id: Type.String({ minLength: 1, maxLength: 200 }),
        state: Type.String({ minLength: 1, maxLength: 100 }),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

export async function applyCallback(
  deps: { readonly db: Database; readonly chains: ChainRegistry; readonly clock: Clock },
  body: Static<typeof CallbackBody>,
): Promise<{ readonly changed: boolean }> {
  const { state, id } = body.data;
  if (!isReportedState(state)) {
    throw new ValidationError([
      { field: 'data.state', message: `must be one of ${REPORTED_STATES.join(', ')}` },
    ]);
  }
  const retry = state === 'retry_required';
  const rank = retry ? null : rankOf(state);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    // The request first, as detection locks it (requests, then transfers): no deadlock with a
    // deposit recorded at the same moment.
    const [owner] = await tx
      .select({ requestRowId: offrampTransfers.requestRowId })
      .from(offrampTransfers)
      .where(eq(offrampTransfers.providerTransferId, id))
      .limit(1);
    if (owner) {
      await tx
        .select({ id: requests.id })
        .from(requests)
        .where(eq(requests.id, owner.requestRowId))
        .for('update');
    }
    const [moved] = await tx
      .update(offrampTransfers)
      .set({ status: state, ...(rank !== null && { rank }), updatedAt: now })
      .where(
        and(
          eq(offrampTransfers.providerTransferId, id),
          // Further on; or, after retry_required, the step retried (its rank again); a
          // retry_required itself keeps the rank, once per step it interrupts.
          rank === null
            ? ne(offrampTransfers.status, 'retry_required')
            : or(
                lt(offrampTransfers.rank, rank),
                and(
                  eq(offrampTransfers.status, 'retry_required'),
                  lte(offrampTransfers.rank, rank),
                ),
              ),
          lt(offrampTransfers.rank, FINAL_RANK),
          state === 'fiat_sent' ? isNotNull(offrampTransfers.txHash) : undefined,
        ),
      )
      .returning();
    if (!moved) {
      const [known] = await tx
        .select({ rank: offrampTransfers.rank, txHash: offrampTransfers.txHash })
        .from(offrampTransfers)
        .where(eq(offrampTransfers.providerTransferId, id))
        .limit(1);
      if (!known) throw new AppError('offramp_transfer_not_found', 'Off-ramp transfer not found');
      if (state === 'fiat_sent' && known.txHash === null && known.rank < FINAL_RANK) {
        throw new AppError(
          'offramp_deposit_not_seen',
          'The transfer’s deposit has not been seen on chain yet: report fiat_sent again once it has',
        );
      }
      return { changed: false };
    }
    // Failed or bounced: the funds are back with the payer, so the deposit no longer counts and
    // the request is owed it again (payable with a new transfer).
    if (state === 'failed' || state === 'bounced') await returnDeposit(tx, moved);
    const [request] = await tx
      .update(requests)
      .set({ offrampStatus: state })
      .where(eq(requests.id, moved.requestRowId))
      .returning();
    if (!request) throw new Error('off-ramp transfer without its request');
    await enqueueOfframpEvents(tx, { chains: deps.chains, now }, request, moved, state, {
      eventId: body.event_id,
      eventType: body.event_type,
    });
    return { changed: true };
  });
}

async function returnDeposit(tx: Database, transfer: TransferRow): Promise<void> {
  const [request] = await tx
    .select()
    .from(requests)
    .where(eq(requests.id, transfer.requestRowId))
    .limit(1);
  if (!request) return;
  const deposit = await depositPayment(tx, request, transfer);
  if (deposit) await reversePayment(tx, request.id, deposit.requestAmount ?? deposit.amount);
}
