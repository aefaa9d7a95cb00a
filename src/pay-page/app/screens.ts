import type { SingleOrBatchDisplay } from './api.ts';
import type { PageConfig } from './config.ts';
import { h } from './dom.ts';
import {
  explorerLink,
  networkName,
  shortAddress,
  sumDecimals,
  symbolOf,
  timeLeft,
} from './format.ts';

/**
 * One screen per state, in plain words. Every screen is a card with a focusable heading and a
 * `data-screen` name (what tests and screen readers find first). Everything shown goes in as
 * text (dom.ts): a merchant's reference cannot become markup.
 */

type Content = Node | string | null | false;

export function card(name: string, title: string, ...body: Content[]): HTMLElement {
  const heading = h('h1', { tabindex: '-1' }, title);
  return h('main', { class: 'card', 'data-screen': name }, heading, ...body);
}

/** A mark above the heading: ✓ for done, ! for a link that cannot be paid. */
export function marked(screen: HTMLElement, mark: '✓' | '!'): HTMLElement {
  screen.prepend(
    h('div', { class: mark === '✓' ? 'badge' : 'badge neutral', 'aria-hidden': 'true' }, mark),
  );
  return screen;
}

const spinner = () => h('div', { class: 'spinner', 'aria-hidden': 'true' });

export function loadingScreen(): HTMLElement {
  return card('loading', 'Loading the payment…', h('p', { class: 'muted' }, 'One moment.'));
}

interface Line {
  readonly amount: string;
  readonly currency: string;
  readonly payee: string;
  readonly masked: boolean;
}

function linesOf(display: SingleOrBatchDisplay): Line[] {
  if (display.paymentType === 'single') {
    return [
      {
        // A link in fiat owes its fiat amount; the token amount is the quote's.
        amount: display.amount,
        currency: display.invoiceCurrency ?? display.paymentCurrency,
        payee: display.payee,
        masked: display.destination?.isMasked === true,
      },
    ];
  }
  return display.amounts.map((amount, i) => ({
    amount,
    // A request in fiat owes its fiat amount; the wallet pays it at the batch's quoted rate.
    currency: display.invoiceCurrencies?.[i] ?? display.paymentCurrencies[i] ?? '',
    payee: display.payees[i] ?? '',
    masked: display.destinations[i]?.isMasked === true,
  }));
}

/** "12.5 USDC", or for a batch in one currency its exact total; several currencies: a count. */
function totalOf(lines: readonly Line[]): string {
  const currencies = new Set(lines.map((line) => line.currency));
  const [only] = currencies;
  if (currencies.size === 1 && only !== undefined) {
    const sum = sumDecimals(lines.map((line) => line.amount));
    if (sum !== null) return `${sum} ${symbolOf(only)}`;
  }
  return `${lines.length} amounts`;
}

/** One payment: its amount (a batch's lines each have one) and its payee. */
function lineItem(line: Line, withAmount: boolean): HTMLElement {
  return h(
    'li',
    { class: 'line' },
    withAmount
      ? h(
          'span',
          { class: 'amount', 'data-field': 'amount' },
          `${line.amount} ${symbolOf(line.currency)}`,
        )
      : null,
    h('span', { class: 'label' }, 'To'),
    line.masked
      ? h('span', { class: 'muted' }, 'A recipient the merchant keeps private')
      : h('code', { 'data-field': 'payee' }, line.payee),
  );
}

export interface SummaryParts {
  /** Where the wallet code puts its buttons once it has loaded. */
  readonly wallets: HTMLElement;
  /** Why the last attempt failed, in words; shown above the wallets. */
  readonly problem?: string | undefined;
  /** A fiat link's quote (conversion.ts): filled in once `/pay` has answered. */
  readonly quote?: HTMLElement | undefined;
}

/**
 * The heading: what the payer pays, or for a payout what the creator sends and to whom
 * ("Send 12.5 USDC to 0x1234…abcd", "Send 3.75 USDC to 2 recipients").
 */
function headingOf(display: SingleOrBatchDisplay, lines: readonly Line[]): string {
  if (display.payout !== true) return `Pay ${totalOf(lines)}`;
  const [only] = lines;
  const to = only && lines.length === 1 ? shortAddress(only.payee) : `${lines.length} recipients`;
  return `Send ${totalOf(lines)} to ${to}`;
}

/**
 * What the payer sends under the link's fee plan, "100.4 USDC (incl. fees 0.4 USDC)": the
 * heading's amount and the payer-borne fees on top of it. Only a link of one request in a USD
 * stablecoin has a plan, and its USD amounts are that token's; a fee finer than the token's
 * decimals is rounded down on chain, so this never says less than the wallet is asked for.
 */
function payerTotalOf(display: SingleOrBatchDisplay): string | null {
  const plan = display.feePlan;
  if (!plan || plan.fees.length === 0 || display.paymentType !== 'single') return null;
  const symbol = symbolOf(display.paymentCurrency);
  const fees = /^0(\.0*)?$/.test(plan.payerBorneFeesUsd)
    ? ''
    : ` (incl. fees ${plan.payerBorneFeesUsd} ${symbol})`;
  return `${plan.payerTotalAmountUsd} ${symbol}${fees}`;
}

export function summaryScreen(
  config: PageConfig,
  display: SingleOrBatchDisplay,
  parts: SummaryParts,
) {
  const lines = linesOf(display);
  const batch = lines.length > 1;
  const creator = display.payout === true ? (display.creatorWalletAddress ?? null) : null;
  const payerTotal = payerTotalOf(display);
  return card(
    'pending',
    headingOf(display, lines),
    display.payout === true
      ? h(
          'p',
          { class: 'payout', 'data-field': 'payout' },
          batch ? 'Batch payout' : 'Payout',
          creator ? ': only the wallet that created it can send it.' : '',
        )
      : null,
    h(
      'p',
      { class: 'network' },
      batch ? `${lines.length} payments in one transaction on ` : 'On ',
      h('strong', { 'data-field': 'network' }, networkName(config, display.network)),
      display.paymentType === 'single' && display.invoiceCurrency !== undefined
        ? `, paid in ${symbolOf(display.paymentCurrency)}`
        : null,
    ),
    h(
      'ul',
      { class: 'lines', 'aria-label': display.payout === true ? 'What you send' : 'What you pay' },
      ...lines.map((line) => lineItem(line, batch)),
    ),
    parts.quote ?? null,
    h(
      'dl',
      { class: 'facts' },
      creator ? h('dt', {}, 'From') : null,
      creator ? h('dd', {}, h('code', { 'data-field': 'creator' }, creator)) : null,
      creator && batch ? h('dt', {}, 'Total') : null,
      creator && batch ? h('dd', { 'data-field': 'total' }, totalOf(lines)) : null,
      display.reference ? h('dt', {}, 'Reference') : null,
      display.reference ? h('dd', { 'data-field': 'reference' }, display.reference) : null,
      h('dt', {}, 'Fees'),
      h(
        'dd',
        { 'data-field': 'fees' },
        display.feePlan && display.feePlan.fees.length > 0
          ? `${display.feePlan.totalFeesUsd} USD`
          : 'None',
      ),
      payerTotal ? h('dt', {}, display.payout === true ? 'You send' : 'You pay') : null,
      payerTotal ? h('dd', { 'data-field': 'payer-total' }, payerTotal) : null,
      h('dt', {}, 'Network fee'),
      h('dd', {}, 'Shown by your wallet'),
      h('dt', {}, 'Expires in'),
      h('dd', { 'data-field': 'expires' }, timeLeft(display.expiresAt)),
    ),
    parts.problem ? h('p', { class: 'problem', role: 'alert' }, parts.problem) : null,
    parts.wallets,
  );
}

export function connectingScreen(walletName: string): HTMLElement {
  return card(
    'connecting',
    'Connect your wallet',
    h('p', { role: 'status' }, `Confirm the connection in ${walletName}.`),
    spinner(),
  );
}

export function switchingScreen(network: string): HTMLElement {
  return card(
    'switching',
    `Switch to ${network}`,
    h(
      'p',
      { role: 'status' },
      `Your wallet is on another network. Confirm the switch to ${network} in your wallet.`,
    ),
    spinner(),
  );
}

export function payingScreen(step: number, total: number, action: string, detail: string) {
  return card(
    'paying',
    total > 1 ? `Paying: step ${step} of ${total}` : 'Paying',
    h('progress', { max: String(total), value: String(step - 1), 'aria-label': 'Steps done' }),
    h('p', { class: 'step' }, action),
    h('p', { class: 'muted', role: 'status' }, detail),
    spinner(),
  );
}

function transactionLinks(config: PageConfig, network: string, txHashes: readonly string[]) {
  const items = [...new Set(txHashes)].map((hash) => {
    const href = explorerLink(config, network, hash);
    const label = `Transaction ${shortAddress(hash)}`;
    return h(
      'li',
      {},
      href
        ? h('a', { href, rel: 'noopener noreferrer', target: '_blank' }, `${label} on the explorer`)
        : h('code', { title: hash, 'data-field': 'tx' }, label),
    );
  });
  return items.length > 0 ? h('ul', { class: 'transactions' }, ...items) : null;
}

export function confirmingScreen(config: PageConfig, network: string, txHashes: readonly string[]) {
  return card(
    'confirming',
    'Waiting for confirmations',
    h(
      'p',
      { role: 'status' },
      'Your payment was sent. This page updates once the network has confirmed it; you may keep it open or come back later.',
    ),
    transactionLinks(config, network, txHashes),
    spinner(),
  );
}

export type StateKind = 'expired' | 'invalidated' | 'not_found' | 'in_progress' | 'blocked';

const STATES: Record<StateKind, readonly [title: string, words: string]> = {
  expired: ['This payment link has expired', 'Nothing was paid. Ask the merchant for a new link.'],
  invalidated: [
    'This payment link is no longer valid',
    'It was replaced or withdrawn. Ask the merchant for the current link.',
  ],
  not_found: ['Payment not found', 'Check that you opened the whole link you were sent.'],
  in_progress: [
    'A payment is in progress',
    'A payment of this link is being processed. Come back in a few minutes.',
  ],
  blocked: [
    'This payment cannot be made',
    'It was stopped by a compliance check. Contact the merchant.',
  ],
};

export function stateScreen(kind: StateKind): HTMLElement {
  const [title, words] = STATES[kind];
  return marked(card(kind, title, h('p', {}, words)), '!');
}

export function errorScreen(message: string, retry: () => void): HTMLElement {
  const button = h('button', { class: 'button', type: 'button' }, 'Try again');
  button.addEventListener('click', retry);
  return card('error', 'Something went wrong', h('p', { role: 'alert' }, message), button);
}
