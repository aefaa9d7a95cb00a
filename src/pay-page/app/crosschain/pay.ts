import type { Chain } from 'viem';
import type { WalletChoice } from '../../../web/eip6963.ts';
import { ApiError } from '../answer.ts';
import type { PayContext } from '../context.ts';
import { symbolOf } from '../format.ts';
import { payingScreen } from '../screens.ts';
import { forgetSent, rememberSent } from '../sent.ts';
import { chainOf, ensureChain } from '../wallet/evm.ts';
import { Problem } from '../wallet/problems.ts';
import { type Report, reporter } from '../wallet/telemetry.ts';
import { type CrossChainApi, crossChainApi, type Route } from './api.ts';
import { followTransfer } from './follow.ts';
import { quoteLeft, routeScreen, type Source, sourcesOf, sourcesScreen } from './screens.ts';
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
 * Paying a link from another chain: the payer connects, picks a source among the link's
 * `paymentOptions` (chain and token, with their balance), reads what the bridge takes, and
 * pays: the wallet switches to the source chain, sends the approval, then the bridge call. A
 * quote about to expire is never sent: the approvals wait for a new route, the bridge call for
 * a refreshed step. The bridge call sent, it is recorded as the link's intent, which starts
 * the transfer's tracking, and the page follows the transfer to its end (follow.ts).
 */

export async function payFromAnotherChain(
  context: PayContext,
  wallet: WalletChoice,
): Promise<string[] | null> {
  const { display, config } = context;
  if (display.paymentType !== 'single') throw new Problem('Only a single payment crosses chains.');
  const { client, account } = await connect(context, wallet);
  const api = crossChainApi(config, context.token);
  const linkToken = symbolOf(display.paymentCurrency);
  const sources = sourcesOf(await api.options(account), context.network.intentChain ?? '');
  const owed = `${display.amount} ${linkToken}`;
  const source = await choose<Source>(
    (pick) => sourcesScreen(config, owed, sources, pick, () => pick(null)),
    context,
  );
  if (!source) return back(context);
  const route = await api.route(account, source.chain, source.token);
  assertFunded(route, source);
  const [networkId, network] = networkOf(context, source.chain);
  // The merchant's funnel names the source chain the payer chose.
  const report = reporter(
    { ...context, display: { ...display, network: networkId } },
    wallet.rdns,
    account,
  );
  report('wallet_connected');
  // The quote's time left counts down while the payer reads the route.
  const stopTicking = tickQuote(() => quoteLeft(route.metadata.quoteExpiresAt));
  const go = await choose<true>(
    (pick) =>
      routeScreen(
        config,
        { source, route, to: context.network.name },
        () => pick(true),
        () => pick(null),
      ),
    context,
  ).finally(stopTicking);
  if (!go) return back(context);
  const chain = chainOf(network);
  await ensureChain({ network, show: context.show }, client, chain);
  const send = sender(client, chain, account);
  const hash = await sendRoute(context, wallet, send, api, {
    account,
    source,
    route,
    chain,
    report,
  });
  rememberSent(context.token, [hash]);
  if (!(await send.mined(hash))) {
    forgetSent(context.token);
    throw new Problem(REFUSED);
  }
  await api.record({
    chain: source.chain,
    token: linkToken,
    txHash: hash,
    payerAddress: account,
    sourceToken: source.token,
    sourceAmount: route.metadata.sourceAmount,
  });
  void followTransfer(context, { hash, network });
  return null;
}

function assertFunded(route: Route, source: Source): void {
  const { metadata } = route;
  if (metadata.hasEnoughBalance === false) {
    throw new Problem(
      `This wallet holds ${metadata.balance ?? 'less than'} ${source.token}, and paying from it takes ${metadata.sourceAmount} ${source.token} with the bridge’s fee. Choose another source, or add funds.`,
    );
  }
  if (metadata.hasEnoughGas === false) {
    throw new Problem(
      `This wallet does not hold enough ${metadata.costBreakdown.totalGasFee.currency} on that chain for the network fee (gas). Add some, or choose another source.`,
    );
  }
}

/**
 * The approvals, then the bridge call; returns the bridge call's hash. The route is asked for
 * again when it expired before the approvals, and its step refreshed when it expired after
 * them; a refreshed step that takes more than was approved starts again with a new route.
 */
async function sendRoute(
  context: PayContext,
  wallet: WalletChoice,
  send: Send,
  api: CrossChainApi,
  chosen: { account: string; source: Source; route: Route; chain: Chain; report: Report },
): Promise<`0x${string}`> {
  const { account, source, chain, report } = chosen;
  const bridgeAction = `Send ${source.token} to the bridge`;
  let route = chosen.route;
  for (let round = 0; round < MAX_ROUTES; round++) {
    if (round > 0 || !fresh(route.metadata.quoteExpiresAt)) {
      route = await api.route(account, source.chain, source.token);
      assertFunded(route, source);
    }
    const at = route.metadata.paymentTransactionIndex;
    const approvals = route.transactions.slice(0, at);
    const total = approvals.length + 1;
    for (const [i, approval] of approvals.entries()) {
      const action = `Allow the bridge to take ${route.metadata.sourceAmount} ${source.token}`;
      context.show(payingScreen(i + 1, total, action, `Confirm in ${wallet.name}.`));
      const hash = await send.one(approval);
      context.show(payingScreen(i + 1, total, action, 'Sent. Waiting for the network…'));
      if (!(await send.mined(hash))) throw new Problem(REFUSED);
    }
    let bridge = route.transactions[at];
    if (!bridge) throw new Problem('The payment could not be prepared. Try again.');
    if (!fresh(route.metadata.quoteExpiresAt)) {
      context.show(payingScreen(total, total, bridgeAction, 'The quote expired: quoting again…'));
      const step = route.metadata.rawStep;
      let refreshed: Awaited<ReturnType<CrossChainApi['refresh']>>;
      try {
        refreshed = await api.refresh(step);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'crosschain_route_gone') continue;
        throw error;
      }
      // More than the approval allows: approved again on a new route.
      if (BigInt(refreshed.rawStep.action.fromAmount) > BigInt(step.action.fromAmount)) continue;
      if (!fresh(refreshed.quoteExpiresAt)) continue;
      const tx = refreshed.transactionRequest;
      bridge = {
        to: tx.to,
        data: tx.data,
        value: `0x${BigInt(tx.value ?? 0).toString(16)}`,
        chainId: chain.id,
      };
    }
    context.show(payingScreen(total, total, bridgeAction, `Confirm in ${wallet.name}.`));
    report('payment_sent_to_wallet');
    const hash = await send.one(bridge);
    report('payment_approved_in_wallet', {
      payment_submission_id: hash,
      payment_submission_id_type: 'transaction_hash',
    });
    context.show(payingScreen(total, total, bridgeAction, 'Sent. Waiting for the network…'));
    return hash;
  }
  throw new Problem('The bridge’s quotes kept expiring, so nothing was sent to it. Try again.');
}
