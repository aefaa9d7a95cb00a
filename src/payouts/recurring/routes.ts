import type { Clock } from '../../base/clock.ts';
import { AppError } from '../../base/errors.ts';
import type { ChainClients } from '../../chains/clients.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { erc20Abi } from '../../payments/abis.ts';
import { formatAmount } from '../../payments/amounts.ts';
import { RESETS_ALLOWANCE } from '../../payments/calldata/shared.ts';
import { paymentsOfRequests } from '../../payments/records.ts';
import { evmTransaction } from '../../payments/transactions.ts';
import { proxyAllowance } from './approval.ts';
import { payUrlOf, referenceTransaction } from './create.ts';
import {
  ActivateBody,
  ActivateResponse,
  PatchBody,
  PatchResponse,
  RecurringParams,
  RecurringStatusResponse,
} from './schemas.ts';
import { verifyPermitSignature } from './signature.ts';
import {
  activate,
  cancel,
  committedElsewhere,
  dueDateOf,
  executionsOf,
  findRecurringPayout,
  type RecurringPayoutRow,
  unpause,
} from './store.ts';

const AUTH = ['apiKey', 'clientId'] as const;
const TAGS = ['V2/Payouts'];

/** The exact texts of the reference API (api-facts §4.2). */
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

export const notFound = () => new AppError('recurring_payout_not_found', MESSAGES.notFound);

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

/**
 * `/v2/payouts/recurring/{id}`: submit the payer's signed permit (→ `active`), read the
 * schedule, cancel or unpause it. Every call acts on the caller's account's schedules only;
 * another account's id answers the same 404 as an unknown one.
 */
export function recurringPayoutRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    clients: ChainClients;
    payUrl: string;
  },
): void {
  const load = async (accountId: string, id: string) => {
    const row = await findRecurringPayout(deps.db, accountId, id);
    if (!row) throw notFound();
    return row;
  };

  app.post(
    '/v2/payouts/recurring/:id',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Activate a recurring payout with the payer’s signed permit',
        description:
          'The signature must be the payer’s EIP-712 signature over the `recurringPaymentPermit` the creation answered; it is checked before it is stored.',
        params: RecurringParams,
        body: ActivateBody,
        response: { 201: ActivateResponse },
      },
    },
    async (request, reply) => {
      const row = await load(accountIdOf(request), request.params.id);
      const body = await activateWithSignature(deps, row, request.body.permitSignature, () =>
        load(row.accountId, row.id),
      );
      return reply.code(201).send(body);
    },
  );

  app.get(
    '/v2/payouts/recurring/:id',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'A recurring payout: where it stands, its requests and its payments',
        params: RecurringParams,
        response: { 200: RecurringStatusResponse },
      },
    },
    async (request) => statusBody(deps, await load(accountIdOf(request), request.params.id)),
  );

  app.patch(
    '/v2/payouts/recurring/:id',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Cancel a recurring payout, or unpause one a failed payment paused',
        description:
          '`cancel` answers the approval that lowers the proxy’s allowance to what the payer’s other schedules of the token still need (none when it is already no more than that). `unpause` makes the schedule due again: payments whose dates passed meanwhile are made at once, in order.',
        params: RecurringParams,
        body: PatchBody,
        response: { 200: PatchResponse },
      },
    },
    async (request) => {
      const accountId = accountIdOf(request);
      const row = await load(accountId, request.params.id);
      const { action } = request.body;
      const now = deps.clock.now();
      switch (action) {
        case 'cancel': {
          const cancelled = await cancel(deps.db, row.id, now);
          if (!cancelled) {
            const current = await load(accountId, row.id);
            refuseCancel(current);
            throw new Error(`cancel of ${row.id} refused in state ${current.status}`);
          }
          return cancelBody(deps, cancelled);
        }
        case 'unpause': {
          if (row.status !== 'paused') throw notPaused();
          const active = await deps.db.transaction(async (tx) => {
            const locked = await findRecurringPayout(tx, accountId, row.id, { forUpdate: true });
            return locked ? unpause(tx, locked, now) : null;
          });
          if (!active) throw notPaused();
          return {
            id: active.id,
            status: 'active' as const,
            metadata: {
              processedPayments: active.processedPayments,
              totalPayments: active.totalPayments,
              nextPaymentDate: active.nextPaymentAt?.toISOString() ?? null,
            },
          };
        }
        default:
          throw new AppError('invalid_action', `Invalid action: ${action}`);
      }
    },
  );
}

const notPaused = () => new AppError('recurring_payout_not_paused', MESSAGES.notPaused);

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

function refuseCancel(row: RecurringPayoutRow): void {
  if (row.status === 'cancelled') {
    throw new AppError('recurring_payout_cancelled', MESSAGES.alreadyCancelled);
  }
  if (row.status === 'completed') {
    throw new AppError('recurring_payout_completed', MESSAGES.cannotCancelCompleted);
  }
}

/**
 * The cancellation's answer: an approval of the proxy for what the payer's other schedules of
 * this token may still pull (0 when none), replacing the allowance this one no longer needs;
 * none when the allowance read now is already no more than that (it would raise it). The
 * schedule is cancelled by then, so an allowance that cannot be read still gets the approval.
 */
async function cancelBody(
  deps: { db: Database; chains: ChainRegistry; clients: ChainClients },
  row: RecurringPayoutRow,
) {
  const others = await committedElsewhere(deps.db, row, row.id);
  const allowance = await proxyAllowance(deps, row).catch(() => null);
  const approve = (value: bigint) =>
    referenceTransaction(
      evmTransaction(row.tokenAddress, erc20Abi, 'approve', [row.proxy, value], row.chainId),
    );
  const transactions =
    allowance !== null && allowance <= others
      ? []
      : others > 0n && allowance !== 0n && RESETS_ALLOWANCE.has(row.currency)
        ? [approve(0n), approve(others)]
        : [approve(others)];
  const remainingPayments = row.totalPayments - row.processedPayments;
  return {
    id: row.id,
    status: 'cancelled' as const,
    transactions,
    metadata: {
      remainingPayments,
      remainingAmount: formatAmount(row.amount * BigInt(remainingPayments), decimalsOf(deps, row)),
      processedPayments: row.processedPayments,
      totalPayments: row.totalPayments,
    },
  };
}

export function decimalsOf(deps: { chains: ChainRegistry }, row: RecurringPayoutRow): number {
  const currency = deps.chains.currency(row.currency);
  if (!currency) throw new Error(`recurring payout ${row.id}: unknown currency ${row.currency}`);
  return currency.decimals;
}

async function statusBody(
  deps: { db: Database; chains: ChainRegistry; payUrl: string },
  row: RecurringPayoutRow,
) {
  const decimals = decimalsOf(deps, row);
  const executions = await executionsOf(deps.db, row.id);
  const payments = await paymentsOfRequests(
    deps.db,
    executions.map(({ request }) => request.id),
  );
  const scheduled = row.status === 'pending' || row.status === 'active';
  return {
    id: row.id,
    status: row.status,
    processedPayments: row.processedPayments,
    totalPayments: row.totalPayments,
    frequency: row.frequency,
    startDate: row.startDate.toISOString(),
    amount: formatAmount(row.amount, decimals),
    currency: row.currency,
    network: row.network,
    payer: row.payer,
    payee: row.payee,
    lastPaymentDate: row.lastPaymentAt?.toISOString() ?? null,
    nextPaymentDate: scheduled ? dueDateOf(row, row.processedPayments + 1).toISOString() : null,
    failureCount: row.failureCount,
    failureReason: row.failureReason,
    requests: executions.map(({ request }) => ({
      paymentReference: `0x${request.paymentReference}`,
      requestId: request.requestId,
    })),
    payments: executions.flatMap(({ request }) =>
      (payments.get(request.id) ?? []).map((payment) => ({
        id: payment.id,
        amount: formatAmount(payment.amount, decimals),
        timestamp: payment.timestamp.toISOString(),
        txHash: payment.txHash,
      })),
    ),
    createdAt: row.createdAt.toISOString(),
    payUrl: payUrlOf(deps.payUrl, row.payToken),
  };
}
