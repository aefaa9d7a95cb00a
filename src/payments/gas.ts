import type { Network } from '../chains/networks.ts';
import { formatAmount } from './amounts.ts';

/**
 * Network-fee estimates without an `eth_estimateGas` round trip per call: generous gas limits
 * measured on the real contracts (a fee-proxy payment used 101,090 gas on a local chain), priced
 * at the current base fee plus a tip. `limit` prices the same gas at twice the base fee, what a
 * wallet reserves, so `hasEnoughGas` errs on the safe side.
 */
const APPROVE_GAS = 65_000n;
const ERC20_PAYMENT_GAS = 130_000n;
const NATIVE_PAYMENT_GAS = 60_000n;
/** A conversion proxy's payment: the fee-proxy transfer plus up to two feed reads. */
const CONVERSION_PAYMENT_GAS = 250_000n;
const BATCH_BASE_GAS = 100_000n;
const BATCH_PER_PAYMENT_GAS = 90_000n;
/** Wei per gas offered to the block producer on top of the base fee. */
const PRIORITY_FEE_WEI = 1_000_000_000n;

export type PaymentKind = 'erc20' | 'native' | 'conversion' | { readonly batch: number };

export interface NetworkFee {
  /** Wei the payer should hold for gas, at twice the base fee. */
  readonly limit: bigint;
  readonly display: {
    readonly estimatedNetworkFee: string;
    readonly estimatedApprovalNetworkFee: string;
    readonly estimatedPaymentNetworkFee: string;
  };
}

export function networkFee(
  baseFee: bigint,
  network: Network,
  steps: {
    readonly approvals: number;
    readonly payment: PaymentKind;
    /** Fee-proxy payments of fee legs after the payment. */
    readonly feeLegs?: number;
  },
): NetworkFee {
  const approvalGas = APPROVE_GAS * BigInt(steps.approvals);
  const feeLegGas = ERC20_PAYMENT_GAS * BigInt(steps.feeLegs ?? 0);
  const paymentGas =
    feeLegGas +
    (steps.payment === 'erc20'
      ? ERC20_PAYMENT_GAS
      : steps.payment === 'native'
        ? NATIVE_PAYMENT_GAS
        : steps.payment === 'conversion'
          ? CONVERSION_PAYMENT_GAS
          : BATCH_BASE_GAS + BATCH_PER_PAYMENT_GAS * BigInt(steps.payment.batch));
  const price = baseFee + PRIORITY_FEE_WEI;
  const decimals = network.native.decimals;
  return {
    limit: (approvalGas + paymentGas) * (baseFee * 2n + PRIORITY_FEE_WEI),
    display: {
      estimatedNetworkFee: formatAmount((approvalGas + paymentGas) * price, decimals),
      estimatedApprovalNetworkFee: formatAmount(approvalGas * price, decimals),
      estimatedPaymentNetworkFee: formatAmount(paymentGas * price, decimals),
    },
  };
}
