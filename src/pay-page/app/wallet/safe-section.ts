import type { WalletChoice } from '../../../web/eip6963.ts';
import type { PayContext } from '../context.ts';
import { h } from '../dom.ts';
import { knownSafes, payFromSafe } from './safe.ts';

/**
 * "Pay from a Safe", under the wallet buttons: the payer types the Safe's address (or picks
 * one this browser paid from before) and signs with the wallet of one of its owners. A payout
 * is sent by its creator's wallet only: where that is a Safe, the address is the creator's.
 */

export interface SafeSection {
  /** The section, its buttons those of the wallets found so far; the address typed is kept. */
  element(wallets: readonly WalletChoice[]): HTMLElement;
}

export function safeSection(
  context: PayContext,
  deps: {
    readonly stop: () => void;
    readonly run: (pay: () => Promise<string[] | null>) => void;
    /** The one Safe that may pay (a payout's creator), shown and not editable. */
    readonly only?: string;
  },
): SafeSection {
  const known = deps.only === undefined ? knownSafes() : [deps.only];
  const list = h(
    'datalist',
    { id: 'known-safes' },
    ...known.map((safe) => h('option', { value: safe })),
  );
  const input = h('input', {
    id: 'safe-address',
    type: 'text',
    name: 'safe',
    list: 'known-safes',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: '0x…',
    ...(known[0] !== undefined && { value: known[0] }),
    ...(deps.only !== undefined && { readonly: '' }),
  });
  const buttons = h('div', { class: 'safe-wallets' });
  const section = h(
    'details',
    { class: 'safe' },
    h('summary', {}, 'Pay from a Safe'),
    h(
      'p',
      { class: 'muted' },
      deps.only === undefined
        ? 'Sign with the wallet of one of the Safe’s owners. A Safe that needs more signatures waits for its other owners.'
        : 'This payout is sent from its creator’s address: if that is a Safe, sign with the wallet of one of its owners. A Safe that needs more signatures waits for its other owners.',
    ),
    h('label', { for: 'safe-address' }, 'Safe address'),
    input,
    list,
    buttons,
  );
  return {
    element(wallets) {
      buttons.replaceChildren(
        ...wallets.map((wallet) => {
          const button = h(
            'button',
            { class: 'button secondary', type: 'button', 'data-safe-wallet': wallet.rdns },
            `Sign for the Safe with ${wallet.name}`,
          );
          button.addEventListener(
            'click',
            () => {
              deps.stop();
              deps.run(() => payFromSafe(context, wallet, input.value));
            },
            { once: true },
          );
          return button;
        }),
      );
      return section;
    },
  };
}
