import type { FeePlan, PlanFeeBearer, PlanFlow } from '../base/fee-plan.ts';
import type { Currency } from '../chains/currencies.ts';
import type { ProtocolFeeConfig } from '../config/protocol-fee.ts';
import type { Database } from '../db/client.ts';
import { feeConfigsOf } from './fee-configs.ts';
import { buildFeePlan } from './plan.ts';
import { quantumUsdOf, usdOfBaseUnits } from './plan-amount.ts';
import { resolveFeeConfigs } from './resolve.ts';

/**
 * The one resolver of a payment's fee plan, for the preview and for creation alike: the
 * orchestrator's configs apply only with paired auth (an orchestrator acting for a client ID);
 * otherwise only the protocol fee does (api-facts §11.3).
 */
export interface PlanAt {
  /** The orchestrator and client ID of paired auth; null for any other caller. */
  readonly pair: { readonly orchestratorId: string; readonly clientIdId: string } | null;
  readonly flow: PlanFlow;
  readonly defaultFeeBearer?: PlanFeeBearer | undefined;
  /** The gross amount, in base units of `currency` (a USD stablecoin: `isPlannable`). */
  readonly amount: bigint;
  readonly currency: Currency;
}

export async function feePlanFor(
  deps: { readonly db: Database; readonly protocolFee: ProtocolFeeConfig | null },
  at: PlanAt,
): Promise<FeePlan> {
  const configs =
    at.pair === null
      ? null
      : resolveFeeConfigs(await feeConfigsOf(deps.db, at.pair.orchestratorId), {
          orchestratorId: at.pair.orchestratorId,
          clientIdId: at.pair.clientIdId,
          flow: at.flow === 'get_paid' ? 'incoming' : 'outgoing',
        });
  const { currency } = at;
  return buildFeePlan({
    grossUsd: usdOfBaseUnits(at.amount, currency.decimals),
    flow: at.flow,
    defaultFeeBearer: at.defaultFeeBearer,
    configs,
    protocolFee: deps.protocolFee,
    networkKind: currency.type === 'TRC20' ? 'tron' : 'evm',
    quantumUsd: quantumUsdOf(currency.decimals),
  });
}
