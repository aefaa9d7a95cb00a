import type { Display } from './api.ts';
import type { Calldata } from './calldata.ts';
import { h } from './dom.ts';
import { age, symbolOf } from './format.ts';
import { card } from './screens.ts';

/**
 * Links written in fiat: the payer owes, say, 25 USD and pays in the link's token at the
 * on-chain rate. What the wallet sends is only known from `/pay`'s quote (`requiredAmount`,
 * `conversionRate`, `rateTimestamp`), so the page shows the fiat amount first and the quote
 * as soon as it has one; the quote is read again for the wallet, and once more if the rate
 * moved past what the wallet allowed (`maxToSpend`) and the payment reverted.
 */

export interface Quote {
  /** What the wallet sends, in the token ("25.5"). */
  readonly required: string;
  /** The most the payment may take ("26.01"): the quote plus the room for the rate to move. */
  readonly maxToSpend: string;
  /** Token per one unit of the fiat ("1.08"). */
  readonly rate: string;
  readonly rateTimestamp: string;
  /** Seconds: a rate older than this when the payment is mined makes it revert. */
  readonly maxRateTimespan: number | null;
  readonly token: string;
  readonly fiat: string;
}

/** The fiat a link is written in, or null for a link in its token. */
export function fiatOf(display: Display): { amount: string; currency: string } | null {
  if (display.paymentType !== 'single' || display.invoiceCurrency === undefined) return null;
  return { amount: display.invoiceAmount ?? display.amount, currency: display.invoiceCurrency };
}

/** The quote an answer of `/pay` carries for a fiat link; null for any other. */
export function quoteOf(display: Display, calldata: Calldata): Quote | null {
  const fiat = fiatOf(display);
  const m = calldata.metadata;
  if (!fiat || display.paymentType !== 'single') return null;
  if (!m.requiredAmount || !m.conversionRate || !m.rateTimestamp) return null;
  return {
    required: m.requiredAmount,
    maxToSpend: m.maxToSpend ?? m.requiredAmount,
    rate: m.conversionRate,
    rateTimestamp: m.rateTimestamp,
    maxRateTimespan: m.maxRateTimespan ?? null,
    token: symbolOf(display.paymentCurrency),
    fiat: fiat.currency,
  };
}

/** The rate is older than the contracts accept: paying now would revert whatever the amount. */
export function isStale(quote: Quote, now = Date.now()): boolean {
  if (quote.maxRateTimespan === null) return false;
  return now - Date.parse(quote.rateTimestamp) > quote.maxRateTimespan * 1000;
}

const rateText = (quote: Quote) => `1 ${quote.fiat} = ${quote.rate} ${quote.token}`;

/** The quote's lines in the summary; `null`: still reading it. */
export function quoteFacts(quote: Quote | null, problem?: string): HTMLElement {
  if (!quote) {
    return h(
      'p',
      { class: 'muted quote', 'data-field': 'quote' },
      problem ?? 'Reading the exchange rate…',
    );
  }
  return h(
    'div',
    { class: 'quote', 'data-field': 'quote' },
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'You send'),
      h('dd', { 'data-field': 'crypto-amount' }, `${quote.required} ${quote.token}`),
      h('dt', {}, 'Rate'),
      h('dd', { 'data-field': 'rate' }, rateText(quote)),
      h('dt', {}, 'Rate set'),
      h('dd', { 'data-field': 'rate-age' }, age(quote.rateTimestamp)),
    ),
    h(
      'p',
      { class: 'muted' },
      `Paid at the on-chain rate when your payment is mined. Your wallet allows up to ${quote.maxToSpend} ${quote.token} in case the rate moves meanwhile.`,
    ),
  );
}

/** Puts the quote in the summary's slot, if the summary is still on screen. */
export function showQuote(root: ParentNode, quote: Quote | null, problem?: string): void {
  root.querySelector('[data-field="quote"]')?.replaceWith(quoteFacts(quote, problem));
}

/**
 * After a payment reverted because the rate moved: what happened, the old and the new quote,
 * and the choice to pay the new amount or stop.
 */
export function requoteScreen(
  before: Quote,
  now: Quote,
  sent: boolean,
  choose: (pay: boolean) => void,
): HTMLElement {
  const pay = h(
    'button',
    { class: 'button', type: 'button', 'data-action': 'pay-new-quote' },
    `Pay ${now.required} ${now.token}`,
  );
  const stop = h('button', { class: 'button secondary', type: 'button' }, 'Cancel');
  pay.addEventListener('click', () => choose(true), { once: true });
  stop.addEventListener('click', () => choose(false), { once: true });
  return card(
    'requote',
    'The exchange rate moved',
    h(
      'p',
      { role: 'alert', 'data-field': 'requote-reason' },
      sent
        ? `The rate changed before your payment was mined, so the network refused it and nothing was paid (only the network fee was spent). Your quote allowed up to ${before.maxToSpend} ${before.token}.`
        : `The rate changed since your quote, so the network refused the payment and nothing was paid. Your quote allowed up to ${before.maxToSpend} ${before.token}.`,
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Before'),
      h(
        'dd',
        { 'data-field': 'old-quote' },
        `${before.required} ${before.token} (${rateText(before)})`,
      ),
      h('dt', {}, 'Now'),
      h('dd', { 'data-field': 'crypto-amount' }, `${now.required} ${now.token}`),
      h('dt', {}, 'Rate'),
      h('dd', { 'data-field': 'rate' }, rateText(now)),
      h('dt', {}, 'Rate set'),
      h('dd', { 'data-field': 'rate-age' }, age(now.rateTimestamp)),
    ),
    h('div', { class: 'wallets' }, pay, stop),
  );
}
