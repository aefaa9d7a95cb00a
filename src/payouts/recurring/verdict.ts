import { zeroAddress } from 'viem';
import { formatAmount } from '../../payments/amounts.ts';
import type { Revert } from './on-chain.ts';
import type { RecurringPayoutRow } from './store.ts';

/**
 * What a trigger's revert means for the schedule:
 * - `paid`: the index is paid already (`__AlreadyPaid`): a success, whoever paid it;
 * - `failed`: the payer's side or the permit cannot pay this index (allowance, balance,
 *   signature, deadline, order, bound): the schedule pauses and `payment.failed` is sent, with
 *   `reason` as its `failureReason`;
 * - `retry`: nothing wrong with the schedule (the chain's clock is behind ours, the contract is
 *   paused, the relayer lost its role): the index is given back and tried again later, and the
 *   operator reads `reason` in the log.
 */
export type Verdict =
  | { readonly kind: 'paid' }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'retry'; readonly reason: string };

type Schedule = Pick<
  RecurringPayoutRow,
  'amount' | 'feeAmount' | 'relayerFee' | 'feeAddress' | 'currency'
>;

/** What one trigger pulls from the payer, as the contract computes it (no fee without its address). */
export function pulledPerPayment(schedule: Schedule): bigint {
  const fee = schedule.feeAddress.toLowerCase() === zeroAddress ? 0n : schedule.feeAmount;
  return schedule.amount + fee + schedule.relayerFee;
}

/**
 * The verdict on `revert`. A token's refusal says little (a bare `require`, or its own words),
 * so the payer's allowance and balance, read after the revert, name the cause when they fall
 * short.
 */
export function verdictOf(
  revert: Revert,
  schedule: Schedule,
  funds: { readonly allowance: bigint; readonly balance: bigint },
  decimals: number,
): Verdict {
  const needed = pulledPerPayment(schedule);
  const amount = (value: bigint) => `${formatAmount(value, decimals)} ${schedule.currency}`;
  switch (revert.errorName) {
    case 'ERC20RecurringPaymentProxy__AlreadyPaid':
      return { kind: 'paid' };
    case 'ERC20RecurringPaymentProxy__NotDueYet':
      return { kind: 'retry', reason: 'not due yet by the chain’s clock' };
    case 'ERC20RecurringPaymentProxy__BadSignature':
      return { kind: 'failed', reason: 'The permit signature does not recover to the payer' };
    case 'ERC20RecurringPaymentProxy__SignatureExpired':
      return { kind: 'failed', reason: 'The permit deadline has passed' };
    case 'ERC20RecurringPaymentProxy__IndexOutOfBounds':
    case 'ERC20RecurringPaymentProxy__IndexTooLarge':
      return { kind: 'failed', reason: 'The payment index is beyond the permit’s totalPayments' };
    case 'ERC20RecurringPaymentProxy__PaymentOutOfOrder':
      return {
        kind: 'failed',
        reason: 'The contract expects another payment index first (strict order)',
      };
    default:
      break;
  }
  if (funds.allowance < needed) {
    return {
      kind: 'failed',
      reason: `Insufficient allowance: the payer allows the recurring payment proxy ${amount(funds.allowance)}, a payment takes ${amount(needed)}`,
    };
  }
  if (funds.balance < needed) {
    return {
      kind: 'failed',
      reason: `Insufficient balance: the payer holds ${amount(funds.balance)}, a payment takes ${amount(needed)}`,
    };
  }
  const { message } = revert;
  // Operator problems, the same for every schedule: pausing them all would not help.
  if (message.startsWith('Pausable: paused')) {
    return { kind: 'retry', reason: 'the recurring payment proxy is paused' };
  }
  if (message.startsWith('AccessControl:')) {
    return { kind: 'retry', reason: 'the relayer does not hold RELAYER_ROLE on the proxy' };
  }
  return { kind: 'failed', reason: `The payment reverted: ${message}` };
}
