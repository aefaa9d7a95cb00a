import { AppError, ValidationError } from '../../base/errors.ts';
import type { LegRouteDeps } from '../../crosschain/leg-route.ts';
import type { Database } from '../../db/client.ts';
import { buildBatchCalldata } from '../../payments/calldata/batch.ts';
import type { CalldataDeps } from '../../payments/calldata/shared.ts';
import { buildTronBatchCalldata } from '../../payments/calldata/tron-batch.ts';
import type { Payer } from '../../payments/payer.ts';
import {
  type PayerSafe,
  safeExecution,
  safeTransaction,
} from '../../payments/safe/safe-transaction.ts';
import type { PaymentTransaction } from '../../payments/transactions.ts';
import type { CrossChainQuery } from '../../secure-payments/link-crosschain.ts';
import { completedError, type Link, linkLegs } from '../../secure-payments/links.ts';
import { answerChildren } from './answer-children.ts';
import { CROSS_CHAIN_MAX_CHILDREN } from './create.ts';
import { crossChainMulticall } from './crosschain.ts';
import { executionKindOf } from './view.ts';

export const NOT_EXECUTABLE_MESSAGE =
  'No child of this multicall payout can be paid now; each child’s blockReason says why';

/**
 * Variant C: what a multicall parent's payer sends. Same chain: the approvals its tokens still
 * need and one `batchPayments` on BatchConversionPayments (the batch builder's calldata, each
 * child still emitting its own fee-proxy event); Tron: an approval per token and one call of
 * ERC20BatchPayments. Only the children that can be paid now are in it, each for what it still
 * wants; `transactions` lists every step in the order to send them. A Safe payer (`safe`, EVM
 * only) gets them as one Safe transaction (`safeMulticall`). With `crossChain` (chain and token),
 * the children on other networks or tokens are routed from that source (crosschain.ts,
 * `evm_cross_chain`); children on several networks need it.
 */
export async function multicallCalldata(
  deps: MulticallCalldataDeps,
  link: Link,
  payer: Payer,
  now: Date,
  safe: PayerSafe | null = null,
  crossChain: CrossChainQuery | null = null,
) {
  const answer = await walletCalldata(deps, link, payer, now, crossChain);
  if (answer.executionKind === 'evm_cross_chain') return answer;
  return safe ? safeMulticall(safe, answer) : answer;
}

type MulticallCalldataDeps = CalldataDeps & LegRouteDeps & { readonly db: Database };

const SEVERAL_NETWORKS_MESSAGE =
  'pays children on several networks: send chain and token, the source chain and token the payer pays them all from';

async function walletCalldata(
  deps: MulticallCalldataDeps,
  link: Link,
  payer: Payer,
  now: Date,
  crossChain: CrossChainQuery | null,
) {
  const children = link.children ?? [];
  const legs = linkLegs(deps.chains, link, now);
  if (legs.length === 0) {
    if (link.status === 'completed') throw await completedError(deps, link);
    throw new AppError('multicall_not_executable', NOT_EXECUTABLE_MESSAGE);
  }
  const paying = legs.map((leg) => {
    const child = children.find((c) => c.requests[0]?.requestId === leg.requestId);
    if (!child) throw new Error(`multicall leg ${leg.requestId} has no child`);
    return { leg, child };
  });
  if (crossChain) {
    assertRoutable(link, children.length);
    const routed = await crossChainMulticall(deps, link, paying, payer, crossChain);
    if (routed) return routed;
  }
  const networks = [...new Set(legs.map((leg) => leg.network.id))];
  if (networks.length > 1) {
    throw new ValidationError([
      {
        field: 'chain',
        message: `is required: this multicall ${SEVERAL_NETWORKS_MESSAGE} (${networks.join(', ')})`,
      },
    ]);
  }
  // Children of one network are paid there, whatever kind the parent was created with.
  const kind: 'tron_batch' | 'evm_same_chain' =
    executionKindOf(link) === 'tron_batch' ? 'tron_batch' : 'evm_same_chain';
  let approvals: readonly PaymentTransaction[];
  let batch: PaymentTransaction;
  let funding: {
    hasEnoughBalance?: boolean;
    hasEnoughGas?: boolean | null;
    insufficientTokens?: readonly unknown[];
  };
  if (kind === 'tron_batch') {
    const tron = buildTronBatchCalldata(deps, legs, payer);
    approvals = tron.approvals;
    batch = tron.batchPaymentTransaction;
    funding = {};
  } else {
    const evm = await buildBatchCalldata(deps, legs, payer);
    approvals = evm.ERC20ApprovalTransactions;
    batch = evm.batchPaymentTransaction;
    funding = {
      hasEnoughBalance: evm.metadata.hasEnoughBalance,
      hasEnoughGas: evm.metadata.hasEnoughGas,
      insufficientTokens: evm.metadata.insufficientTokens,
    };
  }
  const transactions = [...approvals, batch];
  const [first] = legs;
  const currencies = new Set(legs.map((leg) => leg.currency.id));
  return {
    paymentType: 'multicall' as const,
    executionKind: kind,
    token: link.row.token,
    network: link.row.network,
    chainId: first?.network.chainId ?? 0,
    ...answerChildren(paying, null),
    transactions,
    feeBundle: null,
    ERC20ApprovalTransactions: approvals,
    batchPaymentTransaction: batch,
    metadata: {
      stepsRequired: transactions.length,
      needsApproval: approvals.length > 0,
      ...(approvals.length > 0 && {
        approvalTransactionIndex: 0,
        approvalTransactionsCount: approvals.length,
      }),
      paymentTransactionIndex: approvals.length,
      transactionSponsorshipFeeUsd: null,
      routeType: 'samechain' as const,
      approvalTransactionIndices: approvals.map((_, index) => index),
      batchPaymentTransactionIndex: approvals.length,
      feeTransactionIndices: [],
      bridgeTxIndices: [],
      childCount: children.length,
      executableLegCount: legs.length,
      network: link.row.network,
      ...(currencies.size === 1 && first && { paymentCurrencyId: first.currency.id }),
      ...funding,
    },
  };
}

/**
 * Chain and token pay a parent from another chain when it was created cross-chain or left
 * open (api-facts §2.10: the kind is then derived at pay time), within the cross-chain cap:
 * a parent made `evm_same_chain`, or with more children than a route per child allows, is paid
 * on its network.
 */
function assertRoutable(link: Link, childCount: number): void {
  if (link.row.executionKind === 'evm_same_chain') {
    throw new AppError(
      'crosschain_unavailable',
      'This multicall payout was created evm_same_chain: pay it on its network, without chain and token',
    );
  }
  if (childCount > CROSS_CHAIN_MAX_CHILDREN) {
    throw new AppError(
      'crosschain_unavailable',
      `A multicall payout is paid cross-chain with at most ${CROSS_CHAIN_MAX_CHILDREN} children; this one has ${childCount}: pay it on its network, without chain and token`,
    );
  }
}

type SameChainAnswer = Exclude<
  Awaited<ReturnType<typeof walletCalldata>>,
  { readonly executionKind: 'evm_cross_chain' }
>;

/**
 * Variant C for a Safe: its approvals and batch payment made by the Safe in one Safe
 * transaction, whose one call every transaction field holds; the gas is the executing owner's.
 */
function safeMulticall(safe: PayerSafe, answer: SameChainAnswer) {
  const calls = answer.transactions.map((tx) => {
    if ('type' in tx) throw new Error('a Safe pays on EVM networks only');
    return tx;
  });
  const safeTx = safeTransaction(safe, calls);
  const execution = safeExecution(safeTx);
  const {
    approvalTransactionIndex: _index,
    approvalTransactionsCount: _count,
    ...metadata
  } = answer.metadata;
  return {
    ...answer,
    transactions: [execution],
    ERC20ApprovalTransactions: [],
    batchPaymentTransaction: execution,
    metadata: {
      ...metadata,
      stepsRequired: 1,
      paymentTransactionIndex: 0,
      approvalTransactionIndices: [],
      batchPaymentTransactionIndex: 0,
      hasEnoughGas: null,
      safePaymentDeadline: safe.deadline,
    },
    safeTransaction: safeTx,
  };
}
