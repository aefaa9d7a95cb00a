import { AppError } from '../base/errors.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { PaymentLeg } from '../payments/transactions.ts';
import type { RequestRow } from './requests.ts';

/** What a request still wants: nothing once it is paid in full (or over). */
export function amountDue(request: RequestRow): bigint {
  // Payee-borne fees are paid by their own legs, out of the payee's (src/fees/legs.ts).
  const due = request.expectedAmount - request.payeeBorneFees - request.totalAmountPaid;
  return due > 0n ? due : 0n;
}

/**
 * A request as one leg of a payment: `amount` of what it counts in (its invoice currency), to
 * its payee; a fiat request's leg says so (`invoiceCurrency`) and is paid at the on-chain rate.
 */
export function requestLeg(
  chains: ChainRegistry,
  request: RequestRow,
  amount: bigint,
  fee?: { amount: bigint; address: string },
): PaymentLeg {
  const network = chains.network(request.network);
  const currency = chains.currency(request.paymentCurrency);
  const invoice = chains.currency(request.invoiceCurrency);
  if (!network || !currency || !invoice) {
    throw new AppError(
      'chain_unavailable',
      `Network ${request.network} is not available on this server`,
    );
  }
  return {
    requestId: request.requestId,
    network,
    currency,
    payee: request.payee,
    amount,
    paymentReference: request.paymentReference,
    feeAmount: fee?.amount ?? 0n,
    feeAddress: fee?.address ?? null,
    ...(invoice.id !== currency.id && { invoiceCurrency: invoice }),
  };
}
