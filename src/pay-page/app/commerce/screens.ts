import type { PageConfig } from '../config.ts';
import { h } from '../dom.ts';
import { networkName, symbolOf } from '../format.ts';
import { card, marked } from '../screens.ts';
import type { CommerceStatus, CommerceView } from './api.ts';

/**
 * The screens of a commerce payment: what the authorization holds and until when, who
 * captures it, where it stands, with a slot for the wallets while it awaits the buyer; and the
 * steps of authorizing. Text only, as every screen (dom.ts).
 */

type Stage =
  | 'awaiting'
  | 'authorizing'
  | 'held'
  | 'captured'
  | 'released'
  | 'refunded'
  | 'reclaimed'
  /** Held past the authorization's expiry: the buyer may take it back. */
  | 'reclaimable'
  | 'expired';

const STAGES: Record<CommerceStatus, Stage> = {
  PENDING: 'awaiting',
  FAILED: 'awaiting',
  AUTHORIZING: 'authorizing',
  AUTHORIZED: 'held',
  CAPTURING: 'captured',
  PAID: 'captured',
  VOIDING: 'released',
  VOIDED: 'released',
  REFUNDING: 'refunded',
  REFUNDED: 'refunded',
  PARTIALLY_REFUNDED: 'refunded',
  RECLAIMED: 'reclaimed',
  EXPIRED: 'expired',
};

/** Whether the buyer may still authorize it from here. */
function authorizable(view: CommerceView): boolean {
  return STAGES[view.status] === 'awaiting' && Date.parse(view.preApprovalExpiry) > Date.now();
}

/**
 * Funds still in the escrow past the authorization's expiry, by the service's reading of the
 * chain's clock (`canReclaim`): the hold lapsed uncaptured, or captured in part (`PAID`).
 */
function reclaimable(view: CommerceView): boolean {
  return view.canReclaim;
}

/** What the buyer's wallet may do from here: authorize it, reclaim it, or nothing. */
export function buyerActionOf(view: CommerceView): 'authorize' | 'reclaim' | null {
  if (authorizable(view)) return 'authorize';
  return reclaimable(view) ? 'reclaim' : null;
}

function stageOf(view: CommerceView): Stage {
  if (reclaimable(view)) return 'reclaimable';
  return STAGES[view.status] === 'awaiting' && !authorizable(view)
    ? 'expired'
    : STAGES[view.status];
}

const TITLES: Record<Stage, string> = {
  awaiting: 'Authorize a payment',
  authorizing: 'Authorizing the payment',
  held: 'Payment held',
  captured: 'Payment captured',
  released: 'Payment released',
  refunded: 'Payment refunded',
  reclaimed: 'Payment reclaimed',
  reclaimable: 'The hold expired',
  expired: 'This payment has expired',
};

const STATE_WORDS: Record<Stage, string> = {
  awaiting: 'awaiting authorization',
  authorizing: 'authorizing',
  held: 'held',
  captured: 'captured',
  released: 'released',
  refunded: 'refunded',
  reclaimed: 'reclaimed',
  reclaimable: 'expired, yours to reclaim',
  expired: 'expired',
};

/** A date in the buyer's own words and time zone; `datetime` keeps the exact instant. */
function dateOf(iso: string): HTMLTimeElement {
  const text = new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return h('time', { datetime: iso }, text);
}

function headline(view: CommerceView, stage: Stage): HTMLElement {
  const symbol = symbolOf(view.currency);
  const amount = h('span', { 'data-field': 'amount' }, `${view.amount} ${symbol}`);
  const until = h('span', { 'data-field': 'held-until' }, dateOf(view.authorizationExpiry));
  switch (stage) {
    case 'awaiting':
    case 'authorizing':
      return h('p', { class: 'amount' }, amount, ' will be held until ', until);
    case 'held':
      return h('p', { class: 'amount' }, amount, ' is held until ', until);
    case 'reclaimable':
      return h('p', { class: 'amount' }, amount, ' was held until ', until);
    default:
      return h('p', { class: 'amount' }, amount);
  }
}

const WHAT_HAPPENS =
  'Your wallet moves the amount into an escrow contract, not to the merchant. The merchant captures it when your order ships and releases what it does not take back to your wallet.';

function stageWords(view: CommerceView, stage: Stage): string {
  const symbol = symbolOf(view.currency);
  switch (stage) {
    case 'awaiting':
    case 'authorizing':
    case 'held':
      return WHAT_HAPPENS;
    case 'captured':
      return Number(view.heldAmount) > 0
        ? `The merchant captured ${view.capturedAmount} ${symbol}. The other ${view.heldAmount} ${symbol} stays in the escrow until the merchant releases it, or until the hold expires and you reclaim it.`
        : `The merchant captured ${view.capturedAmount} ${symbol}.`;
    case 'released':
      return 'The merchant released the payment: the amount held is back in your wallet.';
    case 'refunded':
      return `The merchant refunded ${view.refundedAmount} ${symbol} to your wallet.`;
    case 'reclaimed':
      return 'The hold expired and the amount went back to your wallet.';
    case 'reclaimable':
      return Number(view.capturedAmount) > 0
        ? `${view.capturedAmount} ${symbol} was captured; the remaining ${view.heldAmount} ${symbol} is yours to reclaim. It is still in the escrow, and only you can take it back to your wallet.`
        : `The hold expired before the merchant captured it: ${view.heldAmount} ${symbol} is still in the escrow, and only you can take it back. Reclaim it to your wallet.`;
    case 'expired':
      return 'Nothing was held. Ask the merchant for a new link.';
  }
}

export interface PaymentParts {
  /** Where the wallet code puts its buttons (while it awaits the buyer). */
  readonly wallets?: HTMLElement | undefined;
  /** Why the last attempt failed, in words. */
  readonly problem?: string | undefined;
}

export function paymentScreen(config: PageConfig, view: CommerceView, parts: PaymentParts = {}) {
  const stage = stageOf(view);
  const screen = card(
    `commerce-${stage}`,
    TITLES[stage],
    headline(view, stage),
    h('p', { class: 'muted', 'data-field': 'words' }, stageWords(view, stage)),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'State'),
      h('dd', { 'data-field': 'state' }, STATE_WORDS[stage]),
      h('dt', {}, 'Merchant'),
      h('dd', { 'data-field': 'merchant-id' }, view.merchantId),
      h('dt', {}, 'Captured by'),
      h('dd', {}, h('code', { 'data-field': 'merchant' }, view.merchant)),
      view.buyer ? h('dt', {}, 'From') : null,
      view.buyer ? h('dd', {}, h('code', { 'data-field': 'buyer' }, view.buyer)) : null,
      h('dt', {}, 'Network'),
      h('dd', { 'data-field': 'network' }, networkName(config, view.network)),
      stage === 'awaiting' ? h('dt', {}, 'Authorize before') : null,
      stage === 'awaiting'
        ? h('dd', { 'data-field': 'authorize-before' }, dateOf(view.preApprovalExpiry))
        : null,
    ),
    parts.problem ? h('p', { class: 'problem', role: 'alert' }, parts.problem) : null,
    parts.wallets ?? null,
  );
  if (stage === 'held' || stage === 'captured') return marked(screen, '✓');
  if (stage !== 'awaiting' && stage !== 'authorizing') return marked(screen, '!');
  return screen;
}

/** One step of authorizing: the approval, the authorization, or waiting for it to be seen. */
export function stepScreen(step: number, total: number, action: string, detail: string) {
  return card(
    'commerce-step',
    total > 1 ? `Step ${step} of ${total}` : 'One step',
    h('progress', { max: String(total), value: String(step - 1), 'aria-label': 'Steps done' }),
    h('p', { class: 'step' }, action),
    h('p', { class: 'muted', role: 'status' }, detail),
    h('div', { class: 'spinner', 'aria-hidden': 'true' }),
  );
}

const FOLLOWING = {
  authorize: {
    title: 'Authorizing the payment',
    words: 'Your authorization was sent. This page updates once it is held.',
  },
  reclaim: {
    title: 'Reclaiming the payment',
    words: 'Your reclaim was sent. This page updates once the funds are back in your wallet.',
  },
} as const;

/** Sent and seen on chain: until the service reads the payment held, or reclaimed. */
export function followingScreen(action: 'authorize' | 'reclaim') {
  return card(
    'commerce-following',
    FOLLOWING[action].title,
    h('p', { role: 'status' }, FOLLOWING[action].words),
    h('div', { class: 'spinner', 'aria-hidden': 'true' }),
  );
}
