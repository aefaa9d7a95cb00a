import type { PayerRefusal } from './answer.ts';
import { h } from './dom.ts';
import { card, marked } from './screens.ts';

/**
 * What a payer whose wallet the service refused sees (src/screening/): which wallet, why in
 * plain words, and what to do next. Nothing was sent; the payer may go back and use another
 * wallet (or, when screening was down, the same one later).
 */

const WORDS: Record<PayerRefusal, readonly [screen: string, title: string, why: string]> = {
  payer_not_allowed: [
    'payer-not-allowed',
    'This wallet cannot pay this link',
    'The merchant accepts this payment only from wallets it listed, and this wallet is not one of them. Pay from a listed wallet, or ask the merchant.',
  ],
  payer_screening_rejected: [
    'payer-rejected',
    'This wallet cannot pay this link',
    'This payment requires a compliance screening of the paying wallet, and this wallet did not pass it. Contact the merchant if you think this is a mistake.',
  ],
  payer_screening_unavailable: [
    'screening-unavailable',
    'Screening is unavailable right now',
    'This payment requires a compliance screening of the paying wallet, and it could not run just now. Try again in a few minutes.',
  ],
};

export function refusedScreen(
  refusal: PayerRefusal,
  wallet: string,
  back: () => void,
): HTMLElement {
  const [screen, title, why] = WORDS[refusal];
  const button = h(
    'button',
    { class: 'button', type: 'button' },
    refusal === 'payer_screening_unavailable' ? 'Try again' : 'Use another wallet',
  );
  button.addEventListener('click', back, { once: true });
  return marked(
    card(
      screen,
      title,
      h('p', { class: 'muted' }, 'Wallet'),
      h('p', {}, h('code', { 'data-field': 'wallet' }, wallet)),
      h('p', { role: 'alert' }, why),
      h('p', {}, 'Nothing was sent from your wallet.'),
      button,
    ),
    '!',
  );
}
