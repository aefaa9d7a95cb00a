import { conversionRate, formatAmount, formatUsd } from '../payments/amounts.ts';
import { countedAmount, type PaymentRow } from '../payments/records.ts';
import { amountDue } from './legs.ts';
import type { RequestRow } from './requests.ts';
import type { RequestUnits } from './units.ts';

/** The feeds give USD with 8 decimals; a fiat amount in base units is scaled to match. */
const USD_DECIMALS = 8;

/**
 * The conversion fields of a fiat request's status (api-facts §3.2), from its payments: each
 * payment's rate (payment currency per unit of the invoice currency, as the chain applied it)
 * and USD value at its block. `conversionRate` is the rate of the only payment, null once
 * there are several (as the reference does); `amountInUsd` is the request's amount in USD at
 * the latest known USD rate (exact for USD invoices), null before any. The market's current
 * rate is not read here (a status read touches no chain): `currentMarketRate` stays null and
 * `/pay` quotes it.
 */
export function conversionStatus(
  row: RequestRow,
  payments: readonly PaymentRow[],
  units: RequestUnits,
) {
  const decimals = units.decimals;
  const paymentDecimals = units.payment?.decimals ?? 0;
  const isUsd = units.invoice?.symbol === 'USD';
  const rateOf = (payment: PaymentRow) =>
    conversionRate(
      { amount: payment.amount, decimals: paymentDecimals },
      { amount: countedAmount(payment), decimals },
    );
  /** A payment's USD value: exact on a USD invoice, else what the feeds said at its block. */
  const usdOf = (payment: PaymentRow): bigint | null =>
    isUsd ? toUsdUnits(countedAmount(payment), decimals) : payment.amountInUsd;
  // The latest payment whose USD value is known prices what is owed and what remains.
  const latestUsd = [...payments].reverse().find((p) => usdOf(p) !== null && countedAmount(p) > 0n);
  const usdValue = (amount: bigint): bigint | null => {
    if (isUsd) return toUsdUnits(amount, decimals);
    if (!latestUsd) return null;
    const usd = usdOf(latestUsd) ?? 0n;
    return (amount * usd) / countedAmount(latestUsd);
  };
  const format = (usd: bigint | null) => (usd === null ? null : formatUsd(usd));
  // A USD figure no feed gave is left out rather than shown as a number.
  const usdField = <K extends string>(key: K, usd: bigint | null) =>
    (usd === null ? {} : { [key]: formatUsd(usd) }) as Partial<Record<K, string>>;
  const [only] = payments;
  const paidUsd = payments.reduce<bigint | null>((sum, payment) => {
    const usd = usdOf(payment);
    return sum === null || usd === null ? null : sum + usd;
  }, 0n);
  return {
    amountInUsd: format(usdValue(row.expectedAmount)),
    conversionRate: payments.length === 1 && only ? rateOf(only) : null,
    rateSource: 'chainlink' as const,
    conversionBreakdown:
      payments.length === 0
        ? null
        : {
            paidAmount: formatAmount(row.totalAmountPaid, decimals),
            ...usdField('paidAmountInUsd', paidUsd),
            remainingAmount: formatAmount(amountDue(row), decimals),
            ...usdField('remainingAmountInUsd', usdValue(amountDue(row))),
            currentMarketRate: null,
            currentMarketRateSource: null,
            payments: payments.map((payment) => ({
              amount: formatAmount(countedAmount(payment), decimals),
              ...usdField('amountInUsd', usdOf(payment)),
              conversionRate: rateOf(payment),
              rateSource: 'chainlink' as const,
              timestamp: payment.timestamp.toISOString(),
            })),
          },
  };
}

/** A USD amount in base units (cents) in the feeds' 8 decimals. */
function toUsdUnits(amount: bigint, decimals: number): bigint {
  return amount * 10n ** BigInt(USD_DECIMALS - decimals);
}
