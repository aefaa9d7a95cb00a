import { getAddress } from 'viem';
import type { ChainRegistry } from '../chains/registry.ts';
import type { PaymentOptions, PaymentOptionsReader } from '../crosschain/payment-options.ts';
import {
  faceValueEstimate,
  type NeededAmountEstimator,
  type PaymentNeed,
} from '../crosschain/payment-options-sources.ts';
import type { RouteQuoter } from '../crosschain/quote-route.ts';
import type { Database } from '../db/client.ts';
import { feeLegsOf, isFeeLegPaid } from '../fees/legs.ts';
import type { Payer } from '../payments/payer.ts';
import { type Link, linkLegs } from './links.ts';

interface WarnLog {
  warn(details: object, message: string): void;
}

/**
 * A link's `paymentOptions` for the payer that names a wallet (undefined without one): what
 * the link still asks, per currency, as /pay would ask it (the requests' amounts due and the
 * fee legs not yet paid), against the payer's balances on every chain it could pay from.
 * Empty where nothing can be offered: a Tron link (sources are EVM chains, and a Tron wallet
 * holds nothing there), a link written in fiat (what it takes in tokens is the on-chain rate,
 * which /pay reads), a link with nothing left to pay. Only the link's own chain where `/pay`
 * refuses to route from another (link-crosschain.ts): a batch still owing several requests, a
 * smart account paying with its owner's funds (`eoaWallet`).
 */
export async function linkPaymentOptions(
  deps: {
    readonly db: Database;
    readonly chains: ChainRegistry;
    readonly paymentOptions: PaymentOptionsReader;
    readonly routes: RouteQuoter;
  },
  link: Link,
  payer: Payer,
  now: Date,
  log?: WarnLog,
): Promise<PaymentOptions | undefined> {
  if (payer.wallet === undefined) return undefined;
  if (link.row.network === 'tron') return {};
  const legs = linkLegs(deps.chains, link, now);
  if (legs.some((leg) => leg.invoiceCurrency !== undefined)) return {};
  const needs = new Map<string, PaymentNeed>();
  for (const leg of legs) {
    const amount = leg.amount + leg.feeAmount;
    const same = needs.get(leg.currency.id);
    needs.set(leg.currency.id, {
      network: leg.network,
      currency: leg.currency,
      amount: (same?.amount ?? 0n) + amount,
    });
  }
  if (needs.size === 0) return {};
  if (link.row.feePlan?.fees.length) {
    const feeLegs = await feeLegsOf(
      deps.db,
      link.requests.map((request) => request.id),
    );
    for (const leg of [...feeLegs.values()].flat()) {
      const need = needs.get(leg.currency);
      if (!need || isFeeLegPaid(leg)) continue;
      needs.set(leg.currency, { ...need, amount: need.amount + leg.amount - leg.paidAmount });
    }
  }
  const funder = getAddress(payer.eoaWallet ?? payer.wallet);
  const wallet = payer.wallet;
  // A source this wallet was quoted for (its /pay with chain and token) needs what the route
  // takes, the bridge's fee included; the others, the face value until then.
  const quoted: NeededAmountEstimator = async (source) => {
    const route = source.exact
      ? null
      : deps.routes.known(link.row.id, wallet, source.chainKey, source.tokenKey);
    return route ? BigInt(route.step.action.fromAmount) : faceValueEstimate(source);
  };
  const crossChain = legs.length === 1 && payer.eoaWallet === undefined;
  const { options, leftOut } = await deps.paymentOptions.read(
    [...needs.values()],
    funder,
    quoted,
    crossChain,
  );
  if (leftOut.length > 0) log?.warn({ leftOut }, 'paymentOptions: chains left out of the answer');
  return options;
}
