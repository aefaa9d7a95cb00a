import type { PageConfig } from '../config.ts';
import { h, show } from '../dom.ts';
import { errorScreen, loadingScreen, stateScreen } from '../screens.ts';
import { type CommerceView, createCommerceApi } from './api.ts';
import type { CommerceContext } from './context.ts';
import { authorizable, followingScreen, paymentScreen } from './screens.ts';

/**
 * The page of a commerce payment (`PAY_URL/?commerce=<pay token>`): reads the payment by its
 * token and shows what is held and until when; while it awaits the buyer, the wallet code (its
 * own chunk, downloaded meanwhile) offers the wallets, and the buyer approves the wrapper and
 * authorizes. The page then follows the payment until it reads held.
 */

/** Pay tokens are 64 hex digits: anything else (a URL copied in part) names no payment. */
const PAY_TOKEN = /^[0-9a-f]{64}$/;
const FOLLOW_EVERY_MS = 2_000;

const walletCode = () => import('./wallet.ts');

export function showCommerce(config: PageConfig, root: HTMLElement, token: string): void {
  const api = createCommerceApi(config);
  const render = (screen: HTMLElement) => show(root, screen);

  const load = async (): Promise<void> => {
    if (!PAY_TOKEN.test(token)) {
      render(stateScreen('not_found'));
      return;
    }
    render(loadingScreen());
    walletCode().catch(() => {});
    const state = await api.view(token);
    switch (state.kind) {
      case 'not_found':
        render(stateScreen('not_found'));
        return;
      case 'error':
        render(errorScreen(state.message, () => void load()));
        return;
      case 'found':
        present(state.view);
        return;
    }
  };

  /** Until the authorization is counted (held, or anything after it). */
  const follow = async (): Promise<void> => {
    render(followingScreen());
    for (;;) {
      const state = await api.view(token);
      if (
        state.kind === 'found' &&
        state.view.status !== 'PENDING' &&
        state.view.status !== 'AUTHORIZING'
      ) {
        present(state.view);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_EVERY_MS));
    }
  };

  const present = (view: CommerceView, problem?: string): void => {
    if (!authorizable(view)) {
      render(paymentScreen(config, view));
      return;
    }
    const network = config.networks[view.network];
    if (network?.kind !== 'evm') {
      render(errorScreen(`This page cannot authorize on ${view.network}.`, () => void load()));
      return;
    }
    const wallets = h(
      'section',
      { class: 'wallets', 'aria-label': 'Authorize with' },
      h('p', { class: 'muted' }, 'Looking for wallets…'),
    );
    render(paymentScreen(config, view, { wallets, problem }));
    const context: CommerceContext = {
      config,
      api,
      token,
      view,
      network,
      show: render,
      retry: (words) => present(view, words),
      follow: () => void follow(),
      reload: () => void load(),
    };
    walletCode().then(
      (code) => code.mountCommerceWallets(context, wallets),
      () =>
        wallets.replaceChildren(
          h('p', { role: 'alert' }, 'The wallet code could not load. Reload the page.'),
        ),
    );
  };

  void load();
}
