import type { PageConfig } from '../config.ts';
import { h } from '../dom.ts';
import { symbolOf } from '../format.ts';
import { card, marked } from '../screens.ts';
import type { PaymentOptions, Route } from './api.ts';

/**
 * The screens of paying from another chain: the payer's sources (chain and token, balance,
 * whether it covers the payment), the route chosen (what the bridge takes, until when the
 * quote holds), and the transfer on its way. Everything shown goes in as text (dom.ts).
 */

export interface Source {
  /** The reference's names: `ARBITRUM`, `USDT`. */
  readonly chain: string;
  readonly token: string;
  readonly balance: string;
  readonly covers: boolean;
  readonly needed: string;
}

/** The chain's name on this page (`Arbitrum One`), from its name in intents (`ARBITRUM`). */
export function chainName(config: PageConfig, chain: string): string {
  return Object.values(config.networks).find((n) => n.intentChain === chain)?.name ?? chain;
}

/** The sources on other chains than the link's (the wallet buttons pay on the link's own). */
export function sourcesOf(options: PaymentOptions, ownChain: string) {
  const sources: Source[] = [];
  for (const [chain, tokens] of Object.entries(options)) {
    if (chain === ownChain) continue;
    for (const [token, option] of Object.entries(tokens)) {
      sources.push({
        chain,
        token,
        balance: option.balance,
        covers: option.hasEnoughBalance,
        needed: option.neededAmount,
      });
    }
  }
  // The ones that cover the payment first.
  return sources.sort((a, b) => Number(b.covers) - Number(a.covers));
}

export function backButton(onBack: () => void): HTMLElement {
  const back = h('button', { class: 'button secondary', type: 'button' }, 'Back');
  back.addEventListener('click', onBack, { once: true });
  return back;
}

export function sourcesScreen(
  config: PageConfig,
  owed: string,
  sources: readonly Source[],
  onPick: (source: Source) => void,
  onBack: () => void,
): HTMLElement {
  const items = sources.map((source) => {
    const name = `${source.token} on ${chainName(config, source.chain)}`;
    const button = h(
      'button',
      {
        class: source.covers ? 'button' : 'button secondary',
        type: 'button',
        'data-source': `${source.chain}:${source.token}`,
        ...(!source.covers && { disabled: '' }),
      },
      `Pay with ${name}`,
    );
    button.addEventListener('click', () => onPick(source), { once: true });
    return h(
      'li',
      { class: 'line' },
      button,
      h(
        'span',
        { class: 'muted', 'data-field': 'source-balance' },
        `You hold ${source.balance} ${source.token}; about ${source.needed} ${source.token} ${source.covers ? 'pays it' : 'is needed'}. The route shows the bridge’s fee.`,
      ),
    );
  });
  return card(
    'sources',
    'Pay from another chain',
    h('p', {}, `Choose where the ${owed} comes from: a bridge carries it to the link’s network.`),
    items.length > 0
      ? h('ul', { class: 'lines', 'aria-label': 'Where you pay from' }, ...items)
      : h(
          'p',
          { role: 'alert' },
          'Your wallet holds nothing on another chain this link can be paid from.',
        ),
    backButton(onBack),
  );
}

/** "2 minutes", "45 seconds", "expired": how long the quote still holds. */
export function quoteLeft(expiresAt: number, now = Date.now()): string {
  const seconds = Math.floor(expiresAt - now / 1000);
  if (seconds <= 0) return 'expired: it is quoted again when you pay';
  if (seconds < 120) return `${seconds} seconds`;
  return `${Math.floor(seconds / 60)} minutes`;
}

export function routeScreen(
  config: PageConfig,
  chosen: { readonly source: Source; readonly route: Route; readonly to: string },
  onPay: () => void,
  onBack: () => void,
): HTMLElement {
  const { source, route, to } = chosen;
  const { costBreakdown: cost, sourceAmount, quoteExpiresAt } = route.metadata;
  const from = chainName(config, source.chain);
  const pay = h('button', { class: 'button', type: 'button', 'data-action': 'pay' }, 'Pay');
  pay.addEventListener('click', onPay, { once: true });
  return card(
    'route',
    `Pay from ${from}`,
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'You send'),
      h('dd', { 'data-field': 'source-amount' }, `${sourceAmount} ${source.token} on ${from}`),
      h('dt', {}, 'Bridge fee'),
      h(
        'dd',
        { 'data-field': 'bridge-fee' },
        `${cost.bridgeFee.amount} ${cost.bridgeFee.currency}`,
      ),
      h('dt', {}, 'The link receives'),
      h(
        'dd',
        { 'data-field': 'receives' },
        `${cost.totals.paymentAmount} ${symbolOf(cost.totals.paymentCurrency)} on ${to}`,
      ),
      h('dt', {}, 'Network fee'),
      h(
        'dd',
        { 'data-field': 'network-fee' },
        `about ${cost.totalGasFee.amountNative} ${cost.totalGasFee.currency}`,
      ),
      h('dt', {}, 'Quote holds'),
      h('dd', { 'data-field': 'quote-expires' }, quoteLeft(quoteExpiresAt)),
    ),
    h(
      'p',
      { class: 'muted' },
      `Your wallet switches to ${from}, approves the bridge for the amount, then sends it. If the bridge cannot deliver, it returns the ${source.token} to you.`,
    ),
    pay,
    backButton(onBack),
  );
}

export type TransferStage = 'bridging' | 'failed' | 'refunded';

const STAGES: Record<TransferStage, readonly [title: string, words: string]> = {
  bridging: [
    'Crossing to the link’s network',
    'Your payment left your wallet. The bridge delivers it to the link’s network, usually within minutes; this page updates once the payment arrives. You may keep it open or come back later.',
  ],
  failed: [
    'The transfer failed',
    'The bridge could not deliver your payment, so the link was not paid. The link can be paid again.',
  ],
  refunded: [
    'Your payment was returned',
    'The bridge could not deliver your payment and returned the tokens to your wallet. The link was not paid and can be paid again.',
  ],
};

export function transferScreen(
  stage: TransferStage,
  sent: HTMLElement | null,
  onAgain: () => void,
): HTMLElement {
  const [title, words] = STAGES[stage];
  if (stage === 'bridging') {
    return card(
      'transfer',
      title,
      h('p', { role: 'status', 'data-field': 'transfer-stage' }, words),
      sent,
      h('div', { class: 'spinner', 'aria-hidden': 'true' }),
    );
  }
  const again = h('button', { class: 'button', type: 'button' }, 'Back to the payment');
  again.addEventListener('click', onAgain, { once: true });
  return marked(
    card(
      `transfer-${stage}`,
      title,
      h('p', { role: 'alert', 'data-field': 'transfer-stage' }, words),
      sent,
      again,
    ),
    '!',
  );
}
