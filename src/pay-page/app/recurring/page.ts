import type { PageConfig } from '../config.ts';
import { h, show } from '../dom.ts';
import { errorScreen, loadingScreen, stateScreen } from '../screens.ts';
import { createRecurringApi, type RecurringView } from './api.ts';
import type { RecurringContext } from './context.ts';
import { scheduleScreen } from './screens.ts';

/**
 * The page of a recurring payout (`PAY_URL/?recurring=<pay token>`): reads the schedule by its
 * token and shows it; while it waits for its payer's signature, the wallet code (its own
 * chunk, downloaded meanwhile) offers the wallets, and the payer approves the proxy and signs
 * the permit. Every other state is shown as it stands: active, paused, completed, cancelled.
 */

/** What the wallet code gets from the page. */
/** Pay tokens are 64 hex digits: anything else (a URL copied in part) names no schedule. */
const PAY_TOKEN = /^[0-9a-f]{64}$/;

const walletCode = () => import('./wallet.ts');

export function showRecurring(config: PageConfig, root: HTMLElement, token: string): void {
  const api = createRecurringApi(config);
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

  const present = (view: RecurringView, problem?: string): void => {
    if (view.status !== 'pending') {
      render(scheduleScreen(config, view));
      return;
    }
    const network = config.networks[view.network];
    if (network?.kind !== 'evm') {
      render(errorScreen(`This page cannot sign on ${view.network}.`, () => void load()));
      return;
    }
    const wallets = h(
      'section',
      { class: 'wallets', 'aria-label': 'Approve with' },
      h('p', { class: 'muted' }, 'Looking for wallets…'),
    );
    render(scheduleScreen(config, view, { wallets, problem }));
    const context: RecurringContext = {
      config,
      api,
      token,
      view,
      network,
      show: render,
      retry: (words) => present(view, words),
      reload: () => void load(),
    };
    walletCode().then(
      (code) => code.mountRecurringWallets(context, wallets),
      () =>
        wallets.replaceChildren(
          h('p', { role: 'alert' }, 'The wallet code could not load. Reload the page.'),
        ),
    );
  };

  void load();
}
