import type { Address } from 'viem';
import { AppError } from '../../base/errors.ts';
import type { ChainClients } from '../../chains/clients.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { erc20Abi } from '../../payments/abis.ts';
import { formatAmount } from '../../payments/amounts.ts';
import { multicallOf, RESETS_ALLOWANCE } from '../../payments/calldata/shared.ts';
import { readPayerState } from '../../payments/payer-state.ts';
import { type EvmTransaction, evmTransaction } from '../../payments/transactions.ts';
import { PAYER_MISMATCH_MESSAGE, refuseEnded } from './refusals.ts';
import { committedElsewhere, perPayment, type RecurringPayoutRow } from './store.ts';
import { referenceTransaction } from './wire.ts';

/**
 * The ERC-20 approval a recurring payout needs: the proxy may pull every payment still to
 * come of this schedule plus what the payer's other schedules of the token may still pull.
 * The creation answers it, and so does the pay page's route for the payer's wallet (the
 * allowance read again, as the payer may have approved or spent meanwhile).
 */

export interface ApprovalTarget {
  readonly tokenAddress: Address;
  readonly proxy: Address;
  readonly chainId: number;
  /** The currency id: some tokens (USDT) refuse to move an allowance that is not 0. */
  readonly currency: string;
}

/** The approvals from `allowance` to `needed`: none when it is enough. */
export function approvalsFor(
  target: ApprovalTarget,
  allowance: bigint,
  needed: bigint,
): EvmTransaction[] {
  if (allowance >= needed) return [];
  const approve = (value: bigint) =>
    evmTransaction(target.tokenAddress, erc20Abi, 'approve', [target.proxy, value], target.chainId);
  return allowance > 0n && RESETS_ALLOWANCE.has(target.currency)
    ? [approve(0n), approve(needed)]
    : [approve(needed)];
}

/** The `metadata` of the creation answer (api-facts §4.2): the approvals plus the signature. */
export function allowanceMetadata(
  amounts: { readonly needed: bigint; readonly allowance: bigint; readonly existing: bigint },
  decimals: number,
  approvals: number,
) {
  const { needed, allowance, existing } = amounts;
  return {
    stepsRequired: approvals + 1,
    totalNeededAllowance: formatAmount(needed, decimals),
    currentAllowance: formatAmount(allowance, decimals),
    additionalAllowanceNeeded: formatAmount(needed > allowance ? needed - allowance : 0n, decimals),
    existingPaymentsAmount: formatAmount(existing, decimals),
  };
}

/**
 * What the payer of `row` must approve now: the payments this schedule has still to make (all
 * of them until it is signed) and its payer's other schedules', against the allowance read
 * from the chain in one `eth_call` (`readPayerState`).
 */
async function scheduleApproval(
  deps: { readonly db: Database; readonly chains: ChainRegistry; readonly clients: ChainClients },
  row: RecurringPayoutRow,
) {
  const network = deps.chains.network(row.network);
  const currency = deps.chains.currency(row.currency);
  if (!network || !currency) throw new Error(`schedule ${row.id}: unknown network or currency`);
  const target: ApprovalTarget = {
    tokenAddress: row.tokenAddress as Address,
    proxy: row.proxy as Address,
    chainId: row.chainId,
    currency: row.currency,
  };
  const existing = await committedElsewhere(deps.db, row, row.id);
  const remaining = BigInt(row.totalPayments - row.processedPayments) * perPayment(row);
  const needed = remaining + existing;
  const allowance = await proxyAllowance(deps, row);
  const approvals = approvalsFor(target, allowance, needed);
  return {
    approvals,
    metadata: allowanceMetadata(
      { needed, allowance, existing },
      currency.decimals,
      approvals.length,
    ),
  };
}

/** What the payer of `row` allows its proxy now, read in one `eth_call` (`readPayerState`). */
export async function proxyAllowance(
  deps: { readonly chains: ChainRegistry; readonly clients: ChainClients },
  row: RecurringPayoutRow,
): Promise<bigint> {
  const network = deps.chains.network(row.network);
  if (!network) throw new Error(`schedule ${row.id}: unknown network ${row.network}`);
  const state = await deps.clients.read(network.id, (chain) =>
    readPayerState(chain, multicallOf(deps, network), {
      funder: row.payer as Address,
      owner: row.payer as Address,
      tokens: [{ token: row.tokenAddress as Address, spender: row.proxy as Address }],
    }),
  );
  return state.tokens.get(row.tokenAddress.toLowerCase())?.allowance ?? 0n;
}

/**
 * `GET /v2/payouts/recurring/token/{token}/approval`: the approvals the payer still needs,
 * refused for another wallet than the payer and for a schedule that has ended.
 */
export async function payerApproval(
  deps: { chains: ChainRegistry; clients: ChainClients; db: Database },
  row: RecurringPayoutRow,
  wallet: string | undefined,
) {
  if (wallet !== undefined && wallet.toLowerCase() !== row.payer.toLowerCase()) {
    throw new AppError('recurring_payer_mismatch', PAYER_MISMATCH_MESSAGE);
  }
  refuseEnded(row);
  const { approvals, metadata } = await scheduleApproval(deps, row);
  return { transactions: approvals.map(referenceTransaction), metadata };
}
