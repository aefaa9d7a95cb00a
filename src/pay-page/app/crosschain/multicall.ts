import type { Chain } from 'viem';
import type { WalletChoice } from '../../../web/eip6963.ts';
import type { PayContext } from '../context.ts';
import { spansNetworks } from '../multicall.ts';
import { payingScreen } from '../screens.ts';
import { chainOf, ensureChain } from '../wallet/evm.ts';
import { Problem } from '../wallet/problems.ts';
import { crossChainApi, type MulticallRoute, type PaymentOptions } from './api.ts';
import { multicallRouteScreen } from './multicall-screens.ts';
import { quoteLeft, type Source, sourcesOf, sourcesScreen } from './screens.ts';
import {
  back,
  choose,
  connect,
  fresh,
  MAX_ROUTES,
  networkOf,
  REFUSED,
  type Send,
  sender,
  tickQuote,
} from './shared.ts';

/**
 * A multicall payout paid from one source chain (`executionKind: evm_cross_chain`): its
 * creator connects, picks a chain and token every child due can be paid from (the sources its
 * children's `paymentOptions` share; the parent has none of its own), reads the children and
 * what the bridge takes, and pays: the wallet switches to the source chain and sends, in order,
 * the approvals to each bridge contract, one bridge call per child on another network, then the
 * children already on the source chain in one batch. A quote about to expire is never sent: the
 * parent's routes are asked for again (a parent has no step to refresh). The page then follows
 * the parent until every child is paid (main.ts).
 */

const SCALE = 18;

/** A decimal amount ("25.5") in units of 10^-18, to add and compare. */
function units(amount: string): bigint {
  const [whole = '0', part = ''] = amount.split('.');
  return BigInt(whole + part.padEnd(SCALE, '0').slice(0, SCALE));
}

function decimal(value: bigint): string {
  const digits = value.toString().padStart(SCALE + 1, '0');
  const part = digits.slice(-SCALE).replace(/0+$/, '');
  return part ? `${digits.slice(0, -SCALE)}.${part}` : digits.slice(0, -SCALE);
}

/**
 * The sources every child can be paid from, what they take together and whether the balance
 * covers it. A source one child lacks cannot pay the parent.
 */
export function commonSources(options: readonly PaymentOptions[]): Source[] {
  const [first, ...rest] = options.map((each) => sourcesOf(each, ''));
  if (!first) return [];
  const key = (source: Source) => `${source.chain}:${source.token}`;
  const sources: Source[] = [];
  for (const source of first) {
    const same = rest.map((each) => each.find((other) => key(other) === key(source)));
    const all = [source, ...same];
    if (!all.every((each) => each !== undefined)) continue;
    const needed = all.reduce((sum, each) => sum + units(each?.needed ?? '0'), 0n);
    sources.push({
      ...source,
      needed: decimal(needed),
      covers: needed <= units(source.balance),
    });
  }
  return sources.sort((a, b) => Number(b.covers) - Number(a.covers));
}

export async function payMulticallFromAnotherChain(
  context: PayContext,
  wallet: WalletChoice,
): Promise<string[] | null> {
  const { display, config } = context;
  if (display.paymentType !== 'multicall') throw new Problem('Only a multicall payout is paid so.');
  const { client, account } = await connect(context, wallet);
  const due = display.children.filter((child) => child.executable);
  const options = await Promise.all(
    due.map((child) => crossChainApi(config, child.securePaymentToken).options(account)),
  );
  const owed = `money for ${due.length} payout${due.length === 1 ? '' : 's'}`;
  // Children all on the page's network: the wallet buttons pay there, the sources elsewhere.
  const own = spansNetworks(display) ? null : context.network.intentChain;
  const sources = commonSources(options).filter((source) => source.chain !== own);
  const source = await choose<Source>(
    (pick) => sourcesScreen(config, owed, sources, pick, () => pick(null)),
    context,
  );
  if (!source) return back(context);
  const api = crossChainApi(config, context.token);
  const ask = async () => {
    const route = await api.multicallRoute(account, source.chain, source.token);
    assertFunded(route, source);
    return route;
  };
  const route = await ask();
  const [, network] = networkOf(context, source.chain);
  const stopTicking = tickQuote(() =>
    route.metadata.quoteExpiresAt === undefined ? '' : quoteLeft(route.metadata.quoteExpiresAt),
  );
  const go = await choose<true>(
    (pick) =>
      multicallRouteScreen(
        config,
        { source, route, display },
        () => pick(true),
        () => pick(null),
      ),
    context,
  ).finally(stopTicking);
  if (!go) return back(context);
  const chain = chainOf(network);
  await ensureChain({ network, show: context.show }, client, chain);
  return sendAll(context, wallet, sender(client, chain, account), { route, ask, chain });
}

function assertFunded(route: MulticallRoute, source: Source): void {
  const { metadata } = route;
  if (metadata.hasEnoughBalance === false) {
    throw new Problem(
      `This wallet holds ${metadata.balance ?? 'less than'} ${source.token}, and paying every payout from it takes ${metadata.sourceAmount ?? 'more'} ${source.token} with the bridge’s fees. Choose another source, or add funds.`,
    );
  }
  if (metadata.hasEnoughGas === false) {
    throw new Problem(
      `This wallet does not hold enough ${metadata.costBreakdown?.totalGasFee.currency ?? 'native token'} on that chain for the network fee (gas). Add some, or choose another source.`,
    );
  }
}

const PART_SENT =
  'The network refused a transaction after some payouts were sent. Reload the page: it shows which are still due.';

/**
 * The approvals, then (while the quote still holds, else on routes asked for again) the
 * bridge calls and the direct batch, each waited for: the hashes of those after the approvals.
 */
async function sendAll(
  context: PayContext,
  wallet: WalletChoice,
  send: Send,
  input: { route: MulticallRoute; ask: () => Promise<MulticallRoute>; chain: Chain },
): Promise<string[]> {
  let route = input.route;
  for (let round = 0; round < MAX_ROUTES; round++) {
    const holds = () => fresh(route.metadata.quoteExpiresAt ?? Infinity);
    if (round > 0 || !holds()) route = await input.ask();
    const { transactions } = route;
    // No bridge call (every child already on the source chain): all are ordinary steps.
    const at = route.metadata.bridgeTxIndices?.[0] ?? 0;
    const total = transactions.length;
    const step = async (index: number, action: string, refused: string) => {
      const call = transactions[index];
      if (!call) throw new Problem('The payment could not be prepared. Try again.');
      context.show(payingScreen(index + 1, total, action, `Confirm in ${wallet.name}.`));
      const hash = await send.one(call);
      context.show(payingScreen(index + 1, total, action, 'Sent. Waiting for the network…'));
      if (!(await send.mined(hash))) throw new Problem(refused);
      return hash;
    };
    for (let index = 0; index < at; index++) {
      await step(index, 'Allow the bridge to take what it carries', REFUSED);
    }
    // Expired while approving: nothing went to the bridge yet; the routes are asked again.
    if (!holds()) continue;
    const bridges = new Set(route.metadata.bridgeTxIndices ?? []);
    const hashes: string[] = [];
    for (let index = at; index < total; index++) {
      const action = bridges.has(index)
        ? 'Send a payout to the bridge'
        : 'Pay the payouts on this chain';
      hashes.push(await step(index, action, hashes.length === 0 ? REFUSED : PART_SENT));
    }
    return hashes;
  }
  throw new Problem('The bridge’s quotes kept expiring, so nothing was sent to it. Try again.');
}
