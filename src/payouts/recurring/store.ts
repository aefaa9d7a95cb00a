import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Address, Hex } from 'viem';
import { isPayToken, isUuid, newPayToken } from '../../base/ids.ts';
import { occurrenceDate } from '../../base/recurrence.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { recurringExecutions, recurringPayouts, requests } from '../../db/schema.ts';
import type { LinkScope } from '../../http/principal.ts';
import { insertRequests, type NewRequest, type RequestRow } from '../../requests/requests.ts';
import { type SchedulePermitTypedData, schedulePermitTypedData } from './permit.ts';

/**
 * Recurring payouts in the database: the schedule, its executions (one per index, each with
 * its own request) and the transitions the API makes (activate, cancel, unpause). What the
 * executor needs is in `executions.ts`.
 */

export type RecurringPayoutRow = typeof recurringPayouts.$inferSelect;
type RecurringStatus = RecurringPayoutRow['status'];
export type ExecutionRow = typeof recurringExecutions.$inferSelect;

/** A schedule about to be written: everything but what the database fills in. */
export type NewRecurringPayout = Omit<
  typeof recurringPayouts.$inferInsert,
  | 'id'
  | 'payToken'
  | 'status'
  | 'signature'
  | 'processedPayments'
  | 'failureCount'
  | 'failureReason'
  | 'lastPaymentAt'
  | 'nextPaymentAt'
  | 'activatedAt'
  | 'cancelledAt'
  | 'completedAt'
  | 'createdAt'
  | 'updatedAt'
>;

/** Schedules whose permit may still pull tokens from the payer (signed or about to be). */
const COMMITTED: readonly RecurringStatus[] = ['pending', 'active', 'paused'];

/** What one execution pulls from the payer: amount, fee and relayer fee. */
export function perPayment(row: Pick<RecurringPayoutRow, 'amount' | 'feeAmount' | 'relayerFee'>) {
  return row.amount + row.feeAmount + row.relayerFee;
}

/** The calendar date of index `index` (1-based, as the contract counts). */
export function dueDateOf(
  row: Pick<RecurringPayoutRow, 'startDate' | 'frequency'>,
  index: number,
): Date {
  return occurrenceDate(row.startDate, row.frequency, index - 1);
}

/** The typed data the payer signed (or is asked to sign), rebuilt from the stored values. */
export function permitOf(row: RecurringPayoutRow): SchedulePermitTypedData {
  return schedulePermitTypedData(row.chainId, row.proxy as Address, {
    subscriber: row.payer as Address,
    token: row.tokenAddress as Address,
    recipient: row.payee as Address,
    feeAddress: row.feeAddress as Address,
    amount: row.amount,
    feeAmount: row.feeAmount,
    relayerFee: row.relayerFee,
    periodSeconds: row.periodSeconds,
    firstPayment: row.firstPayment,
    totalPayments: row.totalPayments,
    nonce: row.nonce,
    deadline: row.deadline,
    strictOrder: row.strictOrder,
  });
}

/**
 * Writes a schedule (`pending`) with index 1's request and execution, in one transaction: the
 * create answer names that request, as every payout's does.
 */
export async function insertRecurringPayout(
  db: Database,
  schedule: NewRecurringPayout,
  firstRequest: NewRequest,
): Promise<{ schedule: RecurringPayoutRow; request: RequestRow }> {
  return db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(recurringPayouts)
      .values({ ...schedule, payToken: newPayToken() })
      .returning();
    if (!inserted) throw new Error('recurring payout insert returned no row');
    const request = await insertExecution(tx, inserted, 1, firstRequest);
    return { schedule: inserted, request };
  });
}

/** Index `index`'s request and its `pending` execution. */
export async function insertExecution(
  tx: Database,
  schedule: RecurringPayoutRow,
  index: number,
  request: NewRequest,
): Promise<RequestRow> {
  const [row] = await insertRequests(tx, [{ ...request, payout: true }]);
  if (!row) throw new Error('request insert returned no row');
  await tx.insert(recurringExecutions).values({
    recurringPayoutId: schedule.id,
    paymentIndex: index,
    requestRowId: row.id,
    dueAt: dueDateOf(schedule, index),
  });
  return row;
}

/** The account's schedule, or null (another account's is as unknown as a missing one). */
export async function findRecurringPayout(
  db: Database,
  accountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<RecurringPayoutRow | null> {
  if (!isUuid(id)) return null;
  const query = db
    .select()
    .from(recurringPayouts)
    .where(and(eq(recurringPayouts.id, id), eq(recurringPayouts.accountId, accountId)));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

/**
 * The schedule of a pay token: the caller's account's, or any account's for the pay page's
 * own client ID (`linkScopeOf`: the token is the payer's capability). Null when unknown.
 */
export async function findByPayToken(
  db: Database,
  scope: LinkScope,
  token: string,
): Promise<RecurringPayoutRow | null> {
  if (!isPayToken(token)) return null;
  const conditions = [eq(recurringPayouts.payToken, token)];
  if ('accountId' in scope) conditions.push(eq(recurringPayouts.accountId, scope.accountId));
  const [row] = await db
    .select()
    .from(recurringPayouts)
    .where(and(...conditions));
  return row ?? null;
}

/** A schedule's executions with their requests, by index. */
export async function executionsOf(
  db: Database,
  recurringPayoutId: string,
): Promise<{ execution: ExecutionRow; request: RequestRow }[]> {
  return db
    .select({ execution: recurringExecutions, request: requests })
    .from(recurringExecutions)
    .innerJoin(requests, eq(requests.id, recurringExecutions.requestRowId))
    .where(eq(recurringExecutions.recurringPayoutId, recurringPayoutId))
    .orderBy(asc(recurringExecutions.paymentIndex));
}

/**
 * What the payer's other schedules on the same proxy and token may still pull (base units):
 * the allowance a new approval must keep for them, and what a cancellation leaves.
 */
export async function committedElsewhere(
  db: Database,
  key: {
    readonly network: string;
    readonly proxy: string;
    readonly payer: string;
    readonly tokenAddress: string;
  },
  exceptId?: string,
): Promise<bigint> {
  const conditions = [
    eq(recurringPayouts.network, key.network),
    eq(recurringPayouts.proxy, key.proxy),
    eq(recurringPayouts.payer, key.payer),
    eq(recurringPayouts.tokenAddress, key.tokenAddress),
    inArray(recurringPayouts.status, [...COMMITTED]),
  ];
  if (exceptId !== undefined) conditions.push(ne(recurringPayouts.id, exceptId));
  const [row] = await db
    .select({
      total: sql<string>`coalesce(sum((${recurringPayouts.totalPayments} - ${recurringPayouts.processedPayments}) * (${recurringPayouts.amount} + ${recurringPayouts.feeAmount} + ${recurringPayouts.relayerFee})), 0)::text`,
    })
    .from(recurringPayouts)
    .where(and(...conditions));
  return BigInt(row?.total ?? '0');
}

/** The signed permit stored and the schedule `active` from its next index's date. */
export async function activate(
  db: Database,
  row: RecurringPayoutRow,
  signature: Hex,
  now: Date,
): Promise<RecurringPayoutRow | null> {
  const [updated] = await db
    .update(recurringPayouts)
    .set({
      signature,
      status: 'active',
      activatedAt: now,
      updatedAt: now,
      nextPaymentAt: dueDateOf(row, row.processedPayments + 1),
    })
    .where(and(eq(recurringPayouts.id, row.id), eq(recurringPayouts.status, 'pending')))
    .returning();
  return updated ?? null;
}

/** `cancelled`, from any state but `completed` and `cancelled`; null when it was not. */
export async function cancel(
  db: Database,
  id: string,
  now: Date,
): Promise<RecurringPayoutRow | null> {
  const [updated] = await db
    .update(recurringPayouts)
    .set({ status: 'cancelled', cancelledAt: now, updatedAt: now, nextPaymentAt: null })
    .where(
      and(
        eq(recurringPayouts.id, id),
        inArray(recurringPayouts.status, ['pending', 'active', 'paused']),
      ),
    )
    .returning();
  return updated ?? null;
}

/**
 * `paused` → `active`, due again from the first unpaid index's date: when that date has passed,
 * the executor catches up every missed index in order. The failure reason goes; the count stays.
 */
export async function unpause(
  db: Database,
  row: RecurringPayoutRow,
  now: Date,
): Promise<RecurringPayoutRow | null> {
  const [updated] = await db
    .update(recurringPayouts)
    .set({
      status: 'active',
      failureReason: null,
      updatedAt: now,
      nextPaymentAt: dueDateOf(row, row.processedPayments + 1),
    })
    .where(and(eq(recurringPayouts.id, row.id), eq(recurringPayouts.status, 'paused')))
    .returning();
  return updated ?? null;
}

/** Each index's request: the schedule's payee, amount and currency, owed by its payer. */
export function requestFor(chains: ChainRegistry, schedule: RecurringPayoutRow): NewRequest {
  const network = chains.network(schedule.network);
  const currency = chains.currency(schedule.currency);
  if (!network || !currency) throw new Error(`schedule ${schedule.id}: unknown network/currency`);
  return {
    accountId: schedule.accountId,
    clientIdId: schedule.clientIdId,
    network,
    invoiceCurrency: currency,
    paymentCurrency: currency,
    expectedAmount: schedule.amount,
    payee: schedule.payee,
    payer: schedule.payer,
    reference: schedule.reference,
    customerInfo: schedule.customerInfo,
    origin: schedule.origin,
  };
}
