import type { FeePlan } from '../base/fee-plan.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { ProtocolFeeConfig } from '../config/protocol-fee.ts';
import type { Database } from '../db/client.ts';
import { isPlannable, usdOfBaseUnits } from '../fees/plan-amount.ts';
import { feePlanFor } from '../fees/plan-for.ts';
import type { LinkCaller } from './link-caller.ts';
import type { CheckedItem } from './link-items.ts';

/**
 * The fee plan a new incoming link captures (the preview's resolver): null unless every item
 * is written and paid in one USD stablecoin (api-facts §13.3: a batch mixing currencies, or a
 * fiat invoice, gets none). The orchestrator's configs apply with paired auth only.
 */
export async function linkFeePlan(
  deps: {
    readonly db: Database;
    readonly chains: ChainRegistry;
    readonly protocolFee: ProtocolFeeConfig | null;
  },
  caller: LinkCaller,
  items: readonly CheckedItem[],
): Promise<FeePlan | null> {
  const [first] = items;
  if (first === undefined) return null;
  const currency = first.target.currency;
  if (!isPlannable(currency, deps.chains.isCurated(currency))) return null;
  const sameCurrency = items.every(
    (item) => item.target.currency.id === currency.id && item.invoice.id === currency.id,
  );
  if (!sameCurrency) return null;
  const total = items.reduce((sum, item) => sum + item.amount, 0n);
  return feePlanFor(deps, {
    pair:
      caller.orchestratorId !== null && caller.clientId !== null
        ? { orchestratorId: caller.orchestratorId, clientIdId: caller.clientId.id }
        : null,
    flow: 'get_paid',
    grossUsd: usdOfBaseUnits(total, currency.decimals),
    networkKind: first.target.network.kind === 'tron' ? 'tron' : 'evm',
  });
}
