import type { FeePlan, PlanFlow } from '../base/fee-plan.ts';
import type { Currency } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { ProtocolFeeConfig } from '../config/protocol-fee.ts';
import type { Database } from '../db/client.ts';
import { isPlannable } from '../fees/plan-amount.ts';
import { feePlanFor } from '../fees/plan-for.ts';
import type { LinkCaller } from './link-caller.ts';
import type { CheckedItem } from './link-items.ts';

/**
 * The fee plan a new link captures (the preview's resolver): null unless the link is written
 * and paid in one USD stablecoin (api-facts §13.3: a fiat invoice gets none). The
 * orchestrator's configs apply with paired auth only.
 */

export interface LinkFeeDeps {
  readonly db: Database;
  readonly chains: ChainRegistry;
  readonly protocolFee: ProtocolFeeConfig | null;
}

/** The plan of `amount` base units of `currency` for the caller, or null for another currency. */
export async function currencyFeePlan(
  deps: LinkFeeDeps,
  caller: LinkCaller,
  at: { readonly flow: PlanFlow; readonly currency: Currency; readonly amount: bigint },
): Promise<FeePlan | null> {
  const { currency } = at;
  if (!isPlannable(currency, deps.chains.isCurated(currency))) return null;
  return feePlanFor(deps, {
    pair:
      caller.orchestratorId !== null && caller.clientId !== null
        ? { orchestratorId: caller.orchestratorId, clientIdId: caller.clientId.id }
        : null,
    flow: at.flow,
    amount: at.amount,
    currency,
  });
}

/**
 * An incoming link's plan: a link of one request, written and paid in one currency. A batch
 * link gets none (api-facts §13.3): its payment is one batch call, with no fee legs after it.
 */
export async function linkFeePlan(
  deps: LinkFeeDeps,
  caller: LinkCaller,
  items: readonly CheckedItem[],
): Promise<FeePlan | null> {
  const [only, ...rest] = items;
  if (only === undefined || rest.length > 0) return null;
  const currency = only.target.currency;
  if (only.invoice.id !== currency.id) return null;
  return currencyFeePlan(deps, caller, { flow: 'get_paid', currency, amount: only.amount });
}
