import { discoverWallets, type WalletChoice } from '../../../web/eip6963.ts';
import { h } from '../dom.ts';

/**
 * The wallets found in the browser as buttons in `slot`, each worded by `label`, kept current
 * while the slot is on the page; `pick` runs for the one clicked (the others stop listening).
 */

export const NO_WALLET =
  'No wallet found in this browser. Install a wallet extension, or open this page in your wallet app’s browser.';

export function offerWallets(
  slot: HTMLElement,
  label: (name: string) => string,
  pick: (wallet: WalletChoice) => void,
): void {
  let stop = () => {};
  stop = discoverWallets((wallets: readonly WalletChoice[]) => {
    if (!slot.isConnected) return stop();
    slot.replaceChildren(
      ...(wallets.length > 0
        ? wallets.map((wallet) => {
            const button = h(
              'button',
              { class: 'button wallet', type: 'button', 'data-wallet': wallet.rdns },
              wallet.icon
                ? h('img', { src: wallet.icon, alt: '', width: '24', height: '24' })
                : null,
              label(wallet.name),
            );
            button.addEventListener(
              'click',
              () => {
                stop();
                pick(wallet);
              },
              { once: true },
            );
            return button;
          })
        : [h('p', { class: 'muted' }, NO_WALLET)]),
    );
  });
}

/** The section the wallet code fills with its buttons, `label` naming what they do. */
export function walletsSlot(label: string): HTMLElement {
  return h(
    'section',
    { class: 'wallets', 'aria-label': label },
    h('p', { class: 'muted' }, 'Looking for wallets…'),
  );
}
