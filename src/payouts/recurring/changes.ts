import type { Clock } from '../../base/clock.ts';
import { AppError } from '../../base/errors.ts';
import type { ChainClients } from '../../chains/clients.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { erc20Abi } from '../../payments/abis.ts';
import { formatAmount } from '../../payments/amounts.ts';
import { RESETS_ALLOWANCE } from '../../payments/calldata/shared.ts';
import { evmTransaction } from '../../payments/transactions.ts';
import { proxyAllowance } from './approval.ts';
import { loadRecurringPayout, notPaused, refuseCancel } from './refusals.ts';
import {
  cancel,
  committedElsewhere,
  findRecurringPayout,
  type RecurringPayoutRow,
  unpause,
} from './store.ts';
import { decimalsOf } from './views.ts';
import { referenceTransaction } from './wire.ts';

interface ChangeDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
}

/**
 * `PATCH /v2/payouts/recurring/{id}`: `cancel` the account's schedule, or `unpause` one a failed
 * payment paused; any other action answers 400.
 */
export async function changeRecurringPayout(
  deps: ChangeDeps,
  accountId: string,
  id: string,
  action: string,
) {
  const row = await loadRecurringPayout(deps.db, accountId, id);
  const now = deps.clock.now();
  switch (action) {
    case 'cancel': {
      const cancelled = await cancel(deps.db, row.id, now);
      if (!cancelled) {
        const current = await loadRecurringPayout(deps.db, accountId, row.id);
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
