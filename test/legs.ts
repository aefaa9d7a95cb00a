import type { ChainRegistry } from '../src/chains/registry.ts';
import { padFiat } from '../src/payments/calldata/conversion.ts';
import type { PaymentLeg } from '../src/payments/transactions.ts';

/** The fee address the calldata tests pay fees to. */
export const TEST_FEE_ADDRESS = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

/**
 * Payment legs for the calldata builders' tests: `amount` of `currencyId` to one payee under
 * `reference` (16 hex digits, which also makes the request id), with a fee paid to
 * `TEST_FEE_ADDRESS` when there is one (or to `options.feeAddress`), written in
 * `options.invoice` when it is a fiat request (`fee` then in its base units, as `amount`; the
 * leg carries it in the conversion's 8 decimals).
 */
export function legMaker(chains: ChainRegistry) {
  return (
    currencyId: string,
    amount: bigint,
    reference: string,
    fee: bigint,
    options: { readonly feeAddress?: string | null; readonly invoice?: string } = {},
  ): PaymentLeg => {
    const currency = chains.currency(currencyId);
    const network = currency && chains.network(currency.network);
    const invoiceCurrency = options.invoice ? chains.currency(options.invoice) : undefined;
    if (!currency || !network || (options.invoice && !invoiceCurrency))
      throw new Error(`${currencyId} (${options.invoice ?? 'no invoice'}) is missing`);
    return {
      requestId: `01${reference.repeat(4)}`,
      network,
      currency,
      payee: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      amount,
      paymentReference: reference,
      feeAmount: invoiceCurrency ? padFiat(fee, invoiceCurrency) : fee,
      feeAddress:
        options.feeAddress !== undefined ? options.feeAddress : fee > 0n ? TEST_FEE_ADDRESS : null,
      ...(invoiceCurrency && { invoiceCurrency }),
    };
  };
}
