import { getAddress, zeroAddress } from 'viem';
import { type LegRouteDeps, legRoute } from '../../crosschain/leg-route.ts';
import { type MultiRouteLeg, multiRouteAnswer } from '../../crosschain/multi-route-answer.ts';
import { buildBatchCalldata } from '../../payments/calldata/batch.ts';
import type { Payer } from '../../payments/payer.ts';
import type { CrossChainQuery } from '../../secure-payments/link-crosschain.ts';
import type { Link } from '../../secure-payments/links.ts';
import { answerChildren, type Paying } from './answer-children.ts';

/**
 * Variant C of `evm_cross_chain`: a multicall parent paid from one source chain and token
 * (`/pay?chain=&token=`). Each child whose network or token is not the source's is routed
 * through the aggregator on its own, its destination call (the fee proxy payment of the child,
 * under its payment reference) checked before anything is answered; the children already on the
 * source chain in the source token are paid directly, in one batch payment there. The payer
 * sends, on the source chain, the bridge approvals, one bridge call per routed child, then the
 * direct children's approvals and batch payment. Null when no child needs a route (the
 * same-chain answer serves).
 */

export async function crossChainMulticall(
  deps: LegRouteDeps,
  link: Link,
  paying: readonly Paying[],
  payer: Payer,
  query: CrossChainQuery,
) {
  const wallet = getAddress(payer.wallet ?? zeroAddress);
  // Every route asked at once; one refused refuses the whole answer.
  const routed = await Promise.all(
    paying.map(async ({ leg, child }) => ({
      leg,
      child,
      route: await legRoute(deps, {
        key: `${link.row.id}:${child.row.id}`,
        what: 'link',
        leg,
        feeCalls: [],
        wallet,
        chain: query.chain,
        token: query.token,
      }),
    })),
  );
  const legs: MultiRouteLeg[] = routed.flatMap(({ leg, child, route }) =>
    route ? [{ ...route, position: child.position, network: leg.network.id }] : [],
  );
  const [first] = legs;
  if (!first) return null;
  const source = first.source;
  const direct = routed.filter(({ route }) => route === null).map(({ leg }) => leg);
  const directPaid = direct.map((leg) => ({
    currency: leg.currency,
    amount: leg.amount + leg.feeAmount,
  }));
  const [bridged, batch] = await Promise.all([
    multiRouteAnswer(deps, { legs, source, wallet, direct: directPaid }),
    direct.length > 0 ? buildBatchCalldata(deps, direct, payer) : null,
  ]);
  const directApprovals = (batch?.ERC20ApprovalTransactions ?? []).map((tx) => ({
    ...tx,
    chainType: 'evm' as const,
  }));
  const batchTx = batch ? { ...batch.batchPaymentTransaction, chainType: 'evm' as const } : null;
  const transactions = [
    ...bridged.approvals,
    ...bridged.bridges,
    ...directApprovals,
    ...(batchTx ? [batchTx] : []),
  ];
  const bridgeStart = bridged.approvals.length;
  const directStart = bridgeStart + bridged.bridges.length;
  const approvalIndices = [
    ...bridged.approvals.map((_, index) => index),
    ...directApprovals.map((_, index) => directStart + index),
  ];
  const answered = answerChildren(
    paying,
    getAddress(source.currency.address),
    bridged.destinationCalls,
  );
  const hasEnoughGas = bridged.hasEnoughGas && (batch?.metadata.hasEnoughGas ?? true) !== false;
  return {
    paymentType: 'multicall' as const,
    executionKind: 'evm_cross_chain' as const,
    token: link.row.token,
    // Where every transaction of the answer is sent: the source chain.
    network: source.network.id,
    chainId: source.network.chainId,
    ...answered,
    destinationCalls: answered.children.flatMap((child) =>
      child.destinationCall ? [child.destinationCall] : [],
    ),
    transactions,
    feeBundle: null,
    ERC20ApprovalTransactions: [...bridged.approvals, ...directApprovals],
    batchPaymentTransaction: batchTx,
    metadata: {
      stepsRequired: transactions.length,
      needsApproval: true,
      approvalTransactionIndex: 0,
      approvalTransactionsCount: approvalIndices.length,
      paymentTransactionIndex: bridgeStart,
      transactionSponsorshipFeeUsd: null,
      ...bridged.metadata,
      routeType: 'crosschain' as const,
      approvalTransactionIndices: approvalIndices,
      batchPaymentTransactionIndex: batchTx ? transactions.length - 1 : null,
      feeTransactionIndices: [],
      bridgeTxIndices: bridged.bridges.map((_, index) => bridgeStart + index),
      childCount: link.children?.length ?? paying.length,
      executableLegCount: paying.length,
      network: source.network.id,
      hasEnoughBalance: bridged.hasEnoughBalance,
      hasEnoughGas,
    },
  };
}
