import { zeroAddress } from 'viem';
import { AppError } from '../../base/errors.ts';
import { evmToTron } from '../../chains/tron-address.ts';
import { formatAmount, MAX_BASE_UNITS, TOTAL_TOO_LARGE_MESSAGE } from '../amounts.ts';
import type { Payer } from '../payer.ts';
import { referenceBytes } from '../references.ts';
import type { PaymentLeg, TronTransaction } from '../transactions.ts';
import type { CalldataDeps } from './shared.ts';
import { TRON_APPROVE_FEE_LIMIT, TRON_PAYMENT_FEE_LIMIT, tronCall } from './tron.ts';

/** Energy for each further transfer of a batch, in sun, on top of one payment's limit. */
const TRON_BATCH_FEE_LIMIT_PER_ITEM = 40_000_000;
/** The most a Tron transaction may burn (15,000 TRX). */
const TRON_MAX_FEE_LIMIT = 15_000_000_000;

export interface TronBatchCalldata {
  /** One `approve` of the batch contract per token, for that token's total. */
  readonly approvals: readonly TronTransaction[];
  readonly batchPaymentTransaction: TronTransaction;
  readonly metadata: {
    readonly requiredAmounts: readonly { readonly currency: string; readonly amount: string }[];
  };
}

/**
 * Several TRC-20 requests paid in one transaction through ERC20BatchPayments on Tron
 * (contracts.md §2.2, §8): an `approve` of the batch contract per token (it pulls each token's
 * total, amounts and fees, then pays every request through the ERC20FeeProxy, which emits each
 * request's own event), then `batchERC20PaymentsWithReference` when one token is paid, or
 * `batchERC20PaymentsMultiTokensWithReference` for several, in the legs' order. The Tron
 * contract takes no batch fee. With no fee address the payer is named, as for one payment.
 */
export function buildTronBatchCalldata(
  deps: CalldataDeps,
  legs: readonly PaymentLeg[],
  payer: Payer,
): TronBatchCalldata {
  const [first] = legs;
  if (!first) throw new Error('a batch needs at least one request');
  const network = first.network;
  const batch = deps.chains.contracts(network.id).batchPayments;
  if (network.kind !== 'tron' || legs.some((leg) => leg.network.id !== network.id) || !batch) {
    throw new AppError('batch_not_supported', `Batch payments are not supported on ${network.id}`);
  }
  const totals = new Map<string, { leg: PaymentLeg; total: bigint }>();
  for (const leg of legs) {
    const entry = totals.get(leg.currency.address) ?? { leg, total: 0n };
    entry.total += leg.amount + leg.feeAmount;
    totals.set(leg.currency.address, entry);
  }
  if ([...totals.values()].some(({ total }) => total > MAX_BASE_UNITS)) {
    throw new AppError('validation_failed', TOTAL_TOO_LARGE_MESSAGE);
  }
  const approvals = [...totals].map(([token, { total }]) =>
    tronCall(
      token,
      'approve',
      [
        { type: 'address', value: batch },
        { type: 'uint256', value: total.toString() },
      ],
      TRON_APPROVE_FEE_LIMIT,
      network.chainId,
    ),
  );
  const feeAddress =
    legs.find((leg) => leg.feeAddress !== null)?.feeAddress ??
    payer.wallet ??
    evmToTron(zeroAddress);
  const columns = [
    { type: 'address[]', value: legs.map((leg) => leg.payee) },
    { type: 'uint256[]', value: legs.map((leg) => leg.amount.toString()) },
    { type: 'bytes[]', value: legs.map((leg) => referenceBytes(leg.paymentReference)) },
    { type: 'uint256[]', value: legs.map((leg) => leg.feeAmount.toString()) },
    { type: 'address', value: feeAddress },
  ];
  const feeLimit = Math.min(
    TRON_PAYMENT_FEE_LIMIT + TRON_BATCH_FEE_LIMIT_PER_ITEM * (legs.length - 1),
    TRON_MAX_FEE_LIMIT,
  );
  const batchPaymentTransaction =
    totals.size === 1
      ? tronCall(
          batch,
          'batchERC20PaymentsWithReference',
          [{ type: 'address', value: first.currency.address }, ...columns],
          feeLimit,
          network.chainId,
        )
      : tronCall(
          batch,
          'batchERC20PaymentsMultiTokensWithReference',
          [{ type: 'address[]', value: legs.map((leg) => leg.currency.address) }, ...columns],
          feeLimit,
          network.chainId,
        );
  return {
    approvals,
    batchPaymentTransaction,
    metadata: {
      requiredAmounts: [...totals.values()].map(({ leg, total }) => ({
        currency: leg.currency.id,
        amount: formatAmount(total, leg.currency.decimals),
      })),
    },
  };
}

/** Every transaction of a Tron batch, in the order to send them: approvals, then the batch. */
export function tronBatchSteps(calldata: TronBatchCalldata): TronTransaction[] {
  return [...calldata.approvals, calldata.batchPaymentTransaction];
}
