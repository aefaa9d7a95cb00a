import type { WalletChoice } from '../../../web/eip6963.ts';
import type { PayContext } from '../context.ts';
import { h } from '../dom.ts';
import { spansNetworks } from '../multicall.ts';

/**
 * "Pay from another chain", under the wallet buttons: offered on a link of one payment in a
 * token on an EVM network (what a bridge can deliver), not on a payout (its creator sends it).
 * The payer picks a wallet; its balances on the other chains come once it is connected. A
 * multicall payout created to be paid across chains (`evm_cross_chain`) is offered it too:
 * beside the wallet buttons when its children are on one network, in their place when they
 * span several (no one chain pays them directly).
 */

export function multicallCrossChain(context: PayContext): 'only' | 'also' | null {
  const { display } = context;
  if (display.paymentType !== 'multicall' || !display.canExecute) return null;
  if (display.executionKind !== 'evm_cross_chain') return null;
  return spansNetworks(display) ? 'only' : 'also';
}

export function offersCrossChain(context: PayContext): boolean {
  const { display, network } = context;
  return (
    display.paymentType === 'single' &&
    display.payout !== true &&
    display.invoiceCurrency === undefined &&
    network.kind === 'evm' &&
    network.intentChain !== null
  );
}

export function crossChainSection(
  wallets: readonly WalletChoice[],
  run: (wallet: WalletChoice) => void,
): HTMLElement {
  return h(
    'details',
    { class: 'crosschain' },
    h('summary', {}, 'Pay from another chain'),
    h(
      'p',
      { class: 'muted' },
      'Pay with a token you hold on another network: a bridge carries it here, for a fee you see before paying.',
    ),
    ...wallets.map((wallet) => {
      const button = h(
        'button',
        { class: 'button secondary', type: 'button', 'data-crosschain-wallet': wallet.rdns },
        `Choose a source in ${wallet.name}`,
      );
      button.addEventListener('click', () => run(wallet), { once: true });
      return button;
    }),
  );
}
