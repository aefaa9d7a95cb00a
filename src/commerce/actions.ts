import { getAddress } from 'viem';
import { AppError } from '../base/errors.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { authorizeTransaction } from './calldata/authorize.ts';
import { captureTransaction } from './calldata/capture.ts';
import { refundTransaction } from './calldata/refund.ts';
import { voidTransaction } from './calldata/void.ts';
import type { ActionPlan } from './execute.ts';
import {
  checkAuthorize,
  checkCapture,
  checkRefund,
  checkVoid,
  commerceAmount,
  commerceFee,
} from './limits.ts';
import type { CommercePaymentRow } from './payment.ts';

/**
 * The four operations as plans: the call each sends and the rules it must pass. The `/calldata`
 * operations answer the same call after the same rules, so what an operator signs from them is
 * exactly what the execute operation accepts.
 */

export function decimalsOf(chains: ChainRegistry, payment: CommercePaymentRow): number {
  const currency = chains.currency(payment.currency);
  if (!currency) throw new Error(`currency ${payment.currency} is no longer served`);
  return currency.decimals;
}

/**
 * `authorizePayment`, sent by the operator: the wrapper takes it only on terms the buyer
 * pre-approved, which `preApproved` reads from the chain first.
 */
export function authorizePlan(
  signedTransaction: string | undefined,
  preApproved: (payment: CommercePaymentRow & { readonly payer: string }) => Promise<void>,
): ActionPlan {
  return {
    kind: 'authorize',
    // checkAuthorize has refused a payment without a buyer by then.
    ready: async (payment) => {
      if (payment.payer !== null) await preApproved({ ...payment, payer: payment.payer });
    },
    transaction: (payment) => {
      // checkAuthorize refuses a payment without a buyer before any call is built.
      if (payment.payer === null) {
        return {
          to: getAddress(payment.wrapper),
          data: '0x',
          value: '0x0',
          chainId: payment.chainId,
        };
      }
      return authorizeTransaction({ ...payment, payer: payment.payer });
    },
    check: ({ payment, state, now }) => {
      checkAuthorize(payment, state, now);
      return payment.amount;
    },
    signedTransaction,
  };
}

export function capturePlan(
  chains: ChainRegistry,
  body: { captureAmount: string; feeBps?: number; feeReceiver?: string },
  signedTransaction: string | undefined,
): ActionPlan {
  const fee = commerceFee(body.feeBps, body.feeReceiver);
  const amountOf = (payment: CommercePaymentRow) =>
    commerceAmount('captureAmount', body.captureAmount, decimalsOf(chains, payment));
  return {
    kind: 'capture',
    feeBps: fee.feeBps,
    feeReceiver: fee.feeReceiver,
    transaction: (payment) => captureTransaction(payment, { amount: amountOf(payment), ...fee }),
    check: ({ payment, state, now }) => {
      const amount = amountOf(payment);
      checkCapture(payment, state, amount, decimalsOf(chains, payment), now);
      return amount;
    },
    signedTransaction,
  };
}

export function voidPlan(
  reason: string | undefined,
  signedTransaction: string | undefined,
): ActionPlan {
  return {
    kind: 'void',
    ...(reason !== undefined && { reason }),
    transaction: (payment) => voidTransaction(payment),
    check: ({ state }) => {
      checkVoid(state);
      return 0n;
    },
    signedTransaction,
  };
}

export function refundPlan(
  chains: ChainRegistry,
  body: { refundAmount: string },
  signedTransaction: string | undefined,
): ActionPlan {
  const amountOf = (payment: CommercePaymentRow) =>
    commerceAmount('refundAmount', body.refundAmount, decimalsOf(chains, payment));
  return {
    kind: 'refund',
    fundedByOperator: true,
    transaction: (payment) => {
      const collector = chains.contracts(payment.network).operatorRefundCollector;
      if (!collector) {
        throw new AppError(
          'commerce_unavailable',
          `Commerce refunds are not available on ${payment.network}: it has no operator refund collector`,
        );
      }
      return refundTransaction(payment, { amount: amountOf(payment), refundCollector: collector });
    },
    check: ({ payment, state, now }) => {
      const amount = amountOf(payment);
      checkRefund(payment, state, amount, decimalsOf(chains, payment), now);
      return amount;
    },
    signedTransaction,
  };
}
