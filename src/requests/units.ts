import type { Currency } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { RequestRow } from './requests.ts';

/**
 * The currencies of a request: amounts owed and paid (`expectedAmount`, `totalAmountPaid`, a
 * payment's `requestAmount`) are in the invoice currency's base units; what the wallet sends is
 * in the payment currency's. They differ only on conversion requests (a fiat invoice).
 */
export interface RequestUnits {
  readonly invoice: Currency | undefined;
  readonly payment: Currency | undefined;
  /** Decimals of the amounts the request counts in. */
  readonly decimals: number;
  /** A fiat invoice paid at the on-chain rate. */
  readonly converts: boolean;
}

export function requestUnits(
  chains: ChainRegistry,
  row: Pick<RequestRow, 'invoiceCurrency' | 'paymentCurrency'>,
): RequestUnits {
  const invoice = chains.currency(row.invoiceCurrency);
  const payment = chains.currency(row.paymentCurrency);
  return {
    invoice,
    payment,
    decimals: invoice?.decimals ?? payment?.decimals ?? 0,
    converts: row.invoiceCurrency !== row.paymentCurrency,
  };
}
