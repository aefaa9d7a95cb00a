import type { FeePlan, PlanFee } from '../base/fee-plan.ts';
import type { Currency } from '../chains/currencies.ts';
import type { Network } from '../chains/networks.ts';
import { formatAmount } from '../payments/amounts.ts';
import type { FeeBundle, FeeLegCall, FeeRate } from '../payments/calldata/shared.ts';
import { type FeeLegState, isFeeLegPaid, planBaseUnits } from './legs.ts';

/**
 * What `/pay` adds for a payment's fee legs: the calls to append after the payee's (the legs
 * not yet paid), the `feeBundle` that describes them in the same order, and the platform's and
 * the protocol's rates for the metadata. The amounts are the plan's, in the payment currency.
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
  },
): PayableFees {
  const { currency, network } = at;
  const amount = (usd: string) => formatAmount(planBaseUnits(usd, currency), currency.decimals);
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
        grossAmount: amount(plan.grossAmountUsd),
        netRecipientAmount: amount(plan.netRecipientAmountUsd),
        totalFees: amount(plan.totalFeesUsd),
        payeeBorneFees: amount(plan.payeeBorneFeesUsd),
        payerBorneFees: amount(plan.payerBorneFeesUsd),
        payerTotal: amount(plan.payerTotalAmountUsd),
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
