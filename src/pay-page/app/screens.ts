import type { Display } from './api.ts';
import type { PageConfig } from './config.ts';
import { h } from './dom.ts';
import { explorerLink, networkName, shortAddress, symbolOf, timeLeft } from './format.ts';

/**
 * One screen per state, in plain words. Every screen is a card with a focusable heading and a
 * `data-screen` name (what tests and screen readers find first).
 */

function card(name: string, title: string, ...body: (Node | string | null | false)[]) {
  const heading = h('h1', { tabindex: '-1' }, title);
  return h('main', { class: 'card', 'data-screen': name }, heading, ...body);
}

export function loadingScreen(): HTMLElement {
  return card('loading', 'Loading the payment…', h('p', { class: 'muted' }, 'One moment.'));
}

/** One line of what is owed: the amount in its currency, and to whom. */
function owed(amount: string, currency: string, payee: string, masked: boolean) {
  return h(
    'li',
    { class: 'owed' },
    h('span', { class: 'amount' }, `${amount} ${symbolOf(currency)}`),
    h(
      'span',
      { class: 'payee', title: masked ? '' : payee },
      masked ? 'to a recipient the merchant keeps private' : `to ${shortAddress(payee)}`,
    ),
  );
}

export function summaryScreen(config: PageConfig, display: Display, wallets: HTMLElement) {
  const network = networkName(config, display.network);
  const lines =
    display.paymentType === 'single'
      ? [
          owed(
            display.amount,
            display.paymentCurrency,
            display.payee,
            display.destination?.isMasked === true,
          ),
        ]
      : display.amounts.map((amount, i) =>
          owed(
            amount,
            display.paymentCurrencies[i] ?? '',
            display.payees[i] ?? '',
            display.destinations[i]?.isMasked === true,
          ),
        );
  const total =
    display.paymentType === 'single'
      ? `${display.amount} ${symbolOf(display.paymentCurrency)}`
      : `${display.amounts.length} payments`;
  return card(
    'pending',
    `Pay ${total}`,
    h('p', { class: 'network' }, `on ${network}`),
    h('ul', { class: 'lines', 'aria-label': 'What you pay' }, ...lines),
    h(
      'dl',
      { class: 'facts' },
      display.reference ? h('dt', {}, 'Reference') : null,
      display.reference ? h('dd', { 'data-field': 'reference' }, display.reference) : null,
      h('dt', {}, 'Fees'),
      h('dd', {}, display.feePlan ? 'As shown in your wallet' : 'None'),
      h('dt', {}, 'Expires in'),
      h('dd', { 'data-field': 'expires' }, timeLeft(display.expiresAt)),
    ),
    wallets,
  );
}

export function payingScreen(step: number, total: number, action: string, detail: string) {
  return card(
    'paying',
    `Paying: step ${step} of ${total}`,
    h('p', { class: 'step' }, action),
    h('p', { class: 'muted', role: 'status' }, detail),
    h('div', { class: 'spinner', 'aria-hidden': 'true' }),
  );
}

export function confirmingScreen(config: PageConfig, network: string, txHash: string) {
  const link = explorerLink(config, network, txHash);
  return card(
    'confirming',
    'Waiting for confirmations',
    h(
      'p',
      { role: 'status' },
      'Your payment is on its way. This page updates once the network has confirmed it.',
    ),
    link
      ? h('a', { href: link, rel: 'noopener noreferrer', target: '_blank' }, 'See the transaction')
      : null,
    h('div', { class: 'spinner', 'aria-hidden': 'true' }),
  );
}

export function completedScreen(
  config: PageConfig,
  network: string,
  txHashes: readonly string[],
  redirect: { url: string; label: string } | null,
) {
  const links = [...new Set(txHashes)].map((hash) => {
    const href = explorerLink(config, network, hash);
    return h(
      'li',
      {},
      href
        ? h(
            'a',
            { href, rel: 'noopener noreferrer', target: '_blank' },
            `Transaction ${shortAddress(hash)}`,
          )
        : h('code', { title: hash }, `Transaction ${shortAddress(hash)}`),
    );
  });
  const safeRedirect = redirect && /^https?:\/\//i.test(redirect.url) ? redirect : null;
  return card(
    'completed',
    'Paid',
    h('p', {}, 'This payment is complete. Thank you.'),
    links.length > 0 ? h('ul', { class: 'transactions' }, ...links) : null,
    safeRedirect ? h('a', { class: 'button', href: safeRedirect.url }, safeRedirect.label) : null,
  );
}

export function stateScreen(
  kind: 'expired' | 'invalidated' | 'not_found' | 'in_progress' | 'blocked',
): HTMLElement {
  switch (kind) {
    case 'expired':
      return card(
        'expired',
        'This payment link has expired',
        h('p', {}, 'Ask the merchant for a new link.'),
      );
    case 'invalidated':
      return card(
        'invalidated',
        'This payment link is no longer valid',
        h('p', {}, 'It was replaced or withdrawn. Ask the merchant for the current link.'),
      );
    case 'not_found':
      return card(
        'not_found',
        'Payment not found',
        h('p', {}, 'Check that you opened the whole link you were sent.'),
      );
    case 'in_progress':
      return card(
        'in_progress',
        'A payment is in progress',
        h('p', {}, 'A payment of this link is being processed. Come back in a few minutes.'),
      );
    case 'blocked':
      return card(
        'blocked',
        'This payment cannot be made',
        h('p', {}, 'It was stopped by a compliance check. Contact the merchant.'),
      );
  }
}

export function errorScreen(message: string, retry: () => void): HTMLElement {
  const button = h('button', { class: 'button', type: 'button' }, 'Try again');
  button.addEventListener('click', retry);
  return card('error', 'Something went wrong', h('p', { role: 'alert' }, message), button);
}
