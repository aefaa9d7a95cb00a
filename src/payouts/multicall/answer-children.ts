import { formatAmount } from '../../payments/amounts.ts';
import type { PaymentLeg } from '../../payments/transactions.ts';
import type { Child } from '../../secure-payments/link-children.ts';

/** A child of a multicall parent that is paid now, with the payment leg of its request. */
export interface Paying {
  readonly leg: PaymentLeg;
  readonly child: Child;
}

/**
 * What Variant C says of the children it pays, same-chain and cross-chain alike: the
 * index-aligned arrays and one `children` entry each. `sourceTokenAddress` is the token the payer
 * spends on the source chain (null on one network); a routed child carries its checked
 * `destinationCall`.
 */
export function answerChildren<Call extends object>(
  paying: readonly Paying[],
  sourceTokenAddress: string | null,
  destinationCalls: ReadonlyMap<number, Call> = new Map(),
) {
  return {
    childTokens: paying.map(({ child }) => child.row.token),
    requestIds: paying.map(({ leg }) => leg.requestId),
    payees: paying.map(({ leg }) => leg.payee),
    amounts: paying.map(({ leg }) => formatAmount(leg.amount, leg.currency.decimals)),
    references: paying.map(({ child }) => child.row.reference),
    children: paying.map(({ leg, child }) => {
      const destinationCall = destinationCalls.get(child.position);
      return {
        position: child.position,
        securePaymentToken: child.row.token,
        requestId: leg.requestId,
        payee: leg.payee,
        amount: formatAmount(leg.amount, leg.currency.decimals),
        paymentCurrency: leg.currency.id,
        network: leg.network.id,
        paymentReference: leg.paymentReference,
        paymentCurrencyAddress: leg.currency.address,
        sourceTokenAddress,
        tokenAddress: leg.currency.address,
        ...(destinationCall && { destinationCall }),
      };
    }),
  };
}
