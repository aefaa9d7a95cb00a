import { h, show } from '../dom.ts';
import { errorScreen, loadingScreen, stateScreen } from '../screens.ts';
import type { ViewState } from './api.ts';

/**
 * The frame of a page reached by a pay token (`?recurring=`, `?commerce=`): a token of the
 * wrong shape names nothing; else it reads the view (downloading the wallet code meanwhile)
 * and hands it to the page, or says why it could not.
 */

/** Pay tokens are 64 hex digits: anything else (a URL copied in part) names nothing. */
const PAY_TOKEN = /^[0-9a-f]{64}$/;

export interface TokenPage<C> {
  render(screen: HTMLElement): void;
  /** Reads the view again and presents it. */
  load(): Promise<void>;
  /** Mounts the wallet code into `slot` once it is downloaded, or says it could not load. */
  mount(slot: HTMLElement, mount: (code: C) => void): void;
}

export function tokenPage<V, C>(options: {
  readonly root: HTMLElement;
  readonly token: string;
  readonly read: (token: string) => Promise<ViewState<V>>;
  /** The wallet code (its own chunk): downloading starts while the view is read. */
  readonly walletCode: () => Promise<C>;
  readonly present: (view: V) => void;
}): TokenPage<C> {
  const render = (screen: HTMLElement) => show(options.root, screen);
  const load = async (): Promise<void> => {
    if (!PAY_TOKEN.test(options.token)) {
      render(stateScreen('not_found'));
      return;
    }
    render(loadingScreen());
    options.walletCode().catch(() => {});
    const state = await options.read(options.token);
    switch (state.kind) {
      case 'not_found':
        render(stateScreen('not_found'));
        return;
      case 'error':
        render(errorScreen(state.message, () => void load()));
        return;
      case 'found':
        options.present(state.view);
        return;
    }
  };
  const mount = (slot: HTMLElement, mounted: (code: C) => void): void => {
    options
      .walletCode()
      .then(mounted, () =>
        slot.replaceChildren(
          h('p', { role: 'alert' }, 'The wallet code could not load. Reload the page.'),
        ),
      );
  };
  return { render, load, mount };
}
