import type { PageConfig } from '../config.ts';
import { errorScreen } from '../screens.ts';
import { tokenPage } from '../token-page/page.ts';
import { walletsSlot } from '../wallet/offer.ts';
import { type CommerceView, createCommerceApi } from './api.ts';
import type { BuyerAction, CommerceContext } from './context.ts';
import { buyerActionOf, followingScreen, paymentScreen } from './screens.ts';

/**
 * The page of a commerce payment (`PAY_URL/?commerce=<pay token>`): reads the payment by its
 * token and shows what is held and until when. While it awaits the buyer, the wallet code (its
 * own chunk, downloaded meanwhile) offers the wallets, and the buyer approves the wrapper and
 * authorizes; once a hold has expired with anything still in it, the buyer reclaims that. The page then follows
 * the payment until it reads held, or reclaimed.
 */

const FOLLOW_EVERY_MS = 2_000;

/**
 * What ends following each action: the authorization once the payment reads past it; the
 * reclaim once nothing is left to reclaim (a partly captured hold keeps reading `PAID`).
 */
const SETTLED: Record<BuyerAction, (view: CommerceView) => boolean> = {
  authorize: ({ status }) => status !== 'PENDING' && status !== 'AUTHORIZING',
  reclaim: (view) => !view.canReclaim,
};

export function showCommerce(config: PageConfig, root: HTMLElement, token: string): void {
  const api = createCommerceApi(config);

  const follow = async (action: BuyerAction): Promise<void> => {
    page.render(followingScreen(action));
    for (;;) {
      const state = await api.view(token);
      if (state.kind === 'found' && SETTLED[action](state.view)) {
        present(state.view);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_EVERY_MS));
    }
  };

  const present = (view: CommerceView, problem?: string): void => {
    const action = buyerActionOf(view);
    if (action === null) {
      page.render(paymentScreen(config, view));
      return;
    }
    const network = config.networks[view.network];
    if (network?.kind !== 'evm') {
      const words = action === 'authorize' ? 'authorize' : 'reclaim';
      page.render(
        errorScreen(`This page cannot ${words} on ${view.network}.`, () => void page.load()),
      );
      return;
    }
    const wallets = walletsSlot(action === 'authorize' ? 'Authorize with' : 'Reclaim with');
    page.render(paymentScreen(config, view, { wallets, problem }));
    const context: CommerceContext = {
      config,
      api,
      token,
      view,
      network,
      action,
      show: page.render,
      retry: (words) => present(view, words),
      follow: () => void follow(action),
      reload: () => void page.load(),
    };
    page.mount(wallets, (code) => code.mountCommerceWallets(context, wallets));
  };

  const page = tokenPage({
    root,
    token,
    read: api.view,
    walletCode: () => import('./wallet.ts'),
    present: (view) => present(view),
  });
  void page.load();
}
