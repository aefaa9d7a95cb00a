import type { PageConfig } from '../config.ts';
import { errorScreen } from '../screens.ts';
import { tokenPage } from '../token-page/page.ts';
import { walletsSlot } from '../wallet/offer.ts';
import { createRecurringApi, type RecurringView } from './api.ts';
import type { RecurringContext } from './context.ts';
import { scheduleScreen } from './screens.ts';

/**
 * The page of a recurring payout (`PAY_URL/?recurring=<pay token>`): reads the schedule by its
 * token and shows it; while it waits for its payer's signature, the wallet code (its own
 * chunk, downloaded meanwhile) offers the wallets, and the payer approves the proxy and signs
 * the permit. Every other state is shown as it stands: active, paused, completed, cancelled.
 */

export function showRecurring(config: PageConfig, root: HTMLElement, token: string): void {
  const api = createRecurringApi(config);

  const present = (view: RecurringView, problem?: string): void => {
    if (view.status !== 'pending') {
      page.render(scheduleScreen(config, view));
      return;
    }
    const network = config.networks[view.network];
    if (network?.kind !== 'evm') {
      page.render(errorScreen(`This page cannot sign on ${view.network}.`, () => void page.load()));
      return;
    }
    const wallets = walletsSlot('Approve with');
    page.render(scheduleScreen(config, view, { wallets, problem }));
    const context: RecurringContext = {
      config,
      api,
      token,
      view,
      network,
      show: page.render,
      retry: (words) => present(view, words),
      reload: () => void page.load(),
    };
    page.mount(wallets, (code) => code.mountRecurringWallets(context, wallets));
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
