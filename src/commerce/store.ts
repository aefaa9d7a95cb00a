import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import { AppError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { commerceActions, commerceEvents, commercePayments } from '../db/schema.ts';
import type { CallerScope } from '../http/principal.ts';
import type { CommerceActionRow, CommerceEventRow, CommercePaymentRow } from './payment.ts';
import { type CommerceState, commerceState } from './state.ts';

/**
 * Commerce payments as their callers see them: an API key reaches its account's, a client ID
 * only the ones it created; any other is as unknown as a missing one.
 */

export function commerceNotFound(): AppError {
  return new AppError('commerce_payment_not_found', 'Commerce payment not found');
}

function scoped(scope: CallerScope, requestId: string): SQL | undefined {
  return and(
    eq(commercePayments.requestId, requestId.toLowerCase()),
    eq(commercePayments.accountId, scope.accountId),
    scope.clientIdId === null ? undefined : eq(commercePayments.clientIdId, scope.clientIdId),
  );
}

export async function findCommercePayment(
  db: Database,
  scope: CallerScope,
  requestId: string,
): Promise<CommercePaymentRow> {
  const [row] = await db.select().from(commercePayments).where(scoped(scope, requestId));
  if (!row) throw commerceNotFound();
  return row;
}

/** The payment under its row lock (inside `tx`): every reservation is made holding it. */
export async function lockCommercePayment(
  tx: Database,
  scope: CallerScope,
  requestId: string,
): Promise<CommercePaymentRow> {
  const [row] = await tx
    .select()
    .from(commercePayments)
    .where(scoped(scope, requestId))
    .for('update');
  if (!row) throw commerceNotFound();
  return row;
}

export interface LoadedPayment {
  readonly payment: CommercePaymentRow;
  readonly events: readonly CommerceEventRow[];
  readonly actions: readonly CommerceActionRow[];
  readonly state: CommerceState;
  /** The time the state is judged at (the escrow's chain's, chain-time.ts). */
  readonly now: Date;
}

/** The payment's events and actions, and the state they make at `now`. */
export async function loadState(
  db: Database,
  payment: CommercePaymentRow,
  now: Date,
): Promise<LoadedPayment> {
  // One after the other: inside a transaction both run on its one connection.
  const events = await db
    .select()
    .from(commerceEvents)
    .where(eq(commerceEvents.commercePaymentId, payment.id))
    .orderBy(asc(commerceEvents.blockNumber), asc(commerceEvents.logIndex));
  const actions = await db
    .select()
    .from(commerceActions)
    .where(eq(commerceActions.commercePaymentId, payment.id))
    .orderBy(asc(commerceActions.createdAt));
  const state = commerceState({ terms: payment, events, actions, now });
  return { payment, events, actions, state, now };
}

/**
 * Moves an action on: to `sent` from `pending` only, and to an end from in flight only, so an
 * execute operation and the reconciler never undo each other. False when the action had moved
 * on already.
 */
export async function markAction(
  db: Database,
  actionId: string,
  change:
    | {
        readonly status: 'sent';
        readonly txHash: string;
        readonly nonce: number;
        readonly rawTransaction: string;
      }
    | { readonly status: 'confirmed'; readonly txHash: string; readonly endedAt: Date }
    | {
        readonly status: 'failed';
        readonly txHash: string | null;
        readonly failureReason: string;
        readonly endedAt: Date;
      },
): Promise<boolean> {
  const from: ('pending' | 'sent')[] = change.status === 'sent' ? ['pending'] : ['pending', 'sent'];
  const moved = await db
    .update(commerceActions)
    .set(change)
    .where(and(eq(commerceActions.id, actionId), inArray(commerceActions.status, from)))
    .returning({ id: commerceActions.id });
  return moved.length > 0;
}
