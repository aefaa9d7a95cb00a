import type { FeePlan, PlanFee } from '../base/fee-plan.ts';
import type { Currency } from '../chains/currencies.ts';
import type { Network } from '../chains/networks.ts';
import { formatAmount } from '../payments/amounts.ts';
import type { FeeBundle, FeeLegCall, FeeRate } from '../payments/calldata/shared.ts';
import { type FeeLegState, isFeeLegPaid, planBaseUnits } from './legs.ts';

/**
 * What `/pay` adds for a payment's fee legs: the calls to append after the payee's (the legs
 * not yet paid), the `feeBundle` that describes them in the same order, and the platform's and
 * the protocol's rates for the metadata. The fees are the plan's, in the payment currency; the
 * gross and what follows from it are the payment's own base units, which the plan's USD (8
 * decimals) would round down on an 18-decimal token.
 */
export interface PayableFees {
  readonly calls: readonly FeeLegCall[];
  readonly feeBundle: FeeBundle;
  readonly rates: { readonly platformFee?: FeeRate; readonly protocolFee?: FeeRate };
}

/** bps as a percentage string: 50 → "0.5", 1000 → "10". */
function percentage(bps: number): string {
  return formatAmount(BigInt(bps), 2);
}

function rate(plan: FeePlan, type: PlanFee['type'], legs: readonly FeeLegState[]) {
  const leg = legs.find((candidate) => candidate.type === type);
  const fee = leg === undefined ? undefined : plan.fees[leg.position];
  return leg && fee ? { percentage: percentage(fee.percentageBps), address: leg.recipient } : null;
}

export function payableFees(
  plan: FeePlan,
  legs: readonly FeeLegState[],
  at: {
    readonly bundleId: string;
    readonly currency: Currency;
    readonly network: Network;
    /** The payment's amount, in base units of `currency`. */
    readonly grossAmount: bigint;
  },
): PayableFees {
  const { currency, network, grossAmount } = at;
  const amount = (usd: string) => formatAmount(planBaseUnits(usd, currency), currency.decimals);
  const units = (value: bigint) => formatAmount(value, currency.decimals);
  const payeeBorne = planBaseUnits(plan.payeeBorneFeesUsd, currency);
  const payerBorne = planBaseUnits(plan.payerBorneFeesUsd, currency);
  const due = legs.filter((leg) => !isFeeLegPaid(leg));
  const platformFee = rate(plan, 'orchestrator_fee', legs);
  const protocolFee = rate(plan, 'protocol_fee', legs);
  return {
    calls: due.map((leg) => ({
      recipient: leg.recipient,
      amount: leg.amount - leg.paidAmount,
      paymentReference: leg.paymentReference,
    })),
    feeBundle: {
      bundleId: at.bundleId,
      defaultFeeBearer: plan.defaultFeeBearer,
      amountSummary: {
        grossAmount: units(grossAmount),
        netRecipientAmount: units(grossAmount - payeeBorne),
        totalFees: amount(plan.totalFeesUsd),
        payeeBorneFees: units(payeeBorne),
        payerBorneFees: units(payerBorne),
        payerTotal: units(grossAmount + payerBorne),
      },
      fees: due.map((leg) => ({
        requestId: leg.feeRequestId,
        feeComponentId: leg.id,
        feeType: leg.type,
        feeLabel: leg.label,
        feeBearer: leg.feeBearer,
        amount: formatAmount(leg.amount - leg.paidAmount, currency.decimals),
        paymentCurrencyId: currency.id,
        network: network.id,
        chainId: String(network.chainId),
        recipient: leg.recipient,
        paymentReference: `0x${leg.paymentReference}`,
      })),
    },
    rates: {
      ...(platformFee && { platformFee }),
      ...(protocolFee && { protocolFee }),
    },
  };
}
