import { type Branding, createApi, type Display, type LinkState } from './api.ts';
import { applyBranding, brandingChrome } from './branding.ts';
import { readConfig } from './config.ts';
import type { PayContext } from './context.ts';
import { fiatOf, quoteFacts, quoteOf, showQuote } from './conversion.ts';
import { h, show } from './dom.ts';
import { timeLeft } from './format.ts';
import { multicallScreen } from './multicall.ts';
import { receiptOfCompleted, receiptOfMulticall, receiptScreen } from './receipt.ts';
import type { SafePending, SafeProgress } from './safe-pending.ts';
import { safePendingScreen } from './safe-screen.ts';
import {
  confirmingScreen,
  errorScreen,
  loadingScreen,
  stateScreen,
  summaryScreen,
} from './screens.ts';
import { forgetSent, rememberSent, sentFromHere } from './sent.ts';

/**
 * The pay page: reads the link through the public API, shows what is owed, then loads the
 * wallet code (its own chunk) and lets the payer pay. The summary never waits for the wallet
 * code: a payer reads the amount, the payee and the state first.
 */

/** What the wallet code gets from the page. */
const FOLLOW_EVERY_MS = 2_000;
const RATE_UNREAD =
  'The exchange rate could not be read just now; your wallet is quoted when you pay.';
const TICK_EVERY_MS = 30_000;
/** Owners sign over minutes or days: the link is read again at this pace meanwhile. */
const SAFE_EVERY_MS = 5_000;

const config = readConfig();
const api = createApi(config);
const root = document.getElementById('app') ?? document.body;
const token = new URLSearchParams(location.search).get('token')?.trim() ?? '';
// Fetched while the link loads; run only once the summary is on screen.
const walletCode = () => import('./wallet/index.ts');

function render(screen: HTMLElement): void {
  show(root, screen);
}

function showState(state: Exclude<LinkState, { kind: 'payable' }>) {
  switch (state.kind) {
    case 'completed':
      brand(state.completed.branding ?? null);
      render(receiptScreen(config, receiptOfCompleted(state.completed, [])));
      return;
    case 'error':
      render(errorScreen(state.message, () => void load()));
      return;
    case 'safe_pending':
      brand(state.branding);
      void waitForSafe(state.pending, null);
      return;
    default:
      render(stateScreen(state.kind));
  }
}

/** The platform's colours, logo and legal links, on every screen of its link. */
function brand(branding: Branding | null): void {
  applyBranding(document.documentElement, branding);
  const { logo, legal } = brandingChrome(branding);
  if (logo && !document.querySelector('img.logo')) root.before(logo);
  if (legal && !document.querySelector('footer.legal')) root.after(legal);
}

function payable(display: Display): void {
  const network = config.networks[display.network];
  if (!network) {
    render(errorScreen(`This page cannot pay on ${display.network}.`, () => void load()));
    return;
  }
  brand(display.branding);
  let following = false;
  const context: PayContext = {
    config,
    api,
    token,
    display,
    network,
    show: render,
    retry: (problem) => summary(problem),
    reload: () => void load(),
    waitForSafe: (pending, progress) => {
      following = true;
      void waitForSafe(pending, progress);
    },
    follow: (txHashes) => {
      following = true;
      rememberSent(token, txHashes);
      void follow(display, txHashes);
    },
  };
  // Paid from this browser already, and not yet confirmed: follow it, never offer to pay again.
  const sent = sentFromHere(token);
  if (sent !== null) {
    context.follow(sent);
    return;
  }
  const summary = (problem?: string) => {
    // A multicall none of whose payouts can be sent now: shown, and no wallet asked for anything.
    if (display.paymentType === 'multicall' && !display.canExecute) {
      render(multicallScreen(config, display, { wallets: null, problem }));
      return;
    }
    const wallets = h('section', { class: 'wallets', 'aria-label': 'Pay with' });
    wallets.append(h('p', { class: 'muted' }, 'Looking for wallets…'));
    const fiat = fiatOf(display) !== null;
    render(
      display.paymentType === 'multicall'
        ? multicallScreen(config, display, { wallets, problem })
        : summaryScreen(config, display, {
            wallets,
            problem,
            quote: fiat ? quoteFacts(null) : undefined,
          }),
    );
    // A link in fiat: what the wallet would send now, at the on-chain rate (no wallet needed).
    if (fiat) {
      api.calldata(token).then(
        (calldata) => showQuote(root, quoteOf(display, calldata), RATE_UNREAD),
        () => showQuote(root, null, RATE_UNREAD),
      );
    }
    walletCode().then(
      (code) => code.mountWallets(context, wallets),
      () =>
        wallets.replaceChildren(
          h('p', { role: 'alert' }, 'The wallet code could not load. Reload the page.'),
        ),
    );
  };
  summary();
  // Time left counts down; a link that expires while open says so (unless a payment is on its way).
  const ticker = setInterval(() => {
    if (following) return clearInterval(ticker);
    const left = timeLeft(display.expiresAt);
    const field = root.querySelector('[data-field="expires"]');
    if (left === 'expired' && root.querySelector('[data-screen="pending"]')) {
      clearInterval(ticker);
      render(stateScreen('expired'));
    } else if (field) field.textContent = left;
  }, TICK_EVERY_MS);
}

async function follow(display: Display, txHashes: readonly string[]): Promise<void> {
  render(confirmingScreen(config, display.network, txHashes));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_EVERY_MS));
    const state = await api.link(token);
    if (state.kind === 'completed') {
      render(receiptScreen(config, receiptOfCompleted(state.completed, txHashes)));
      return;
    }
    // A multicall with payouts left out (withdrawn, screened) never completes: it is done once
    // nothing in it can be sent any more, which the payouts just sent being paid makes so.
    if (
      state.kind === 'payable' &&
      state.display.paymentType === 'multicall' &&
      !state.display.canExecute
    ) {
      // What was sent is what could be sent before: the display this page paid from.
      const sent = display.paymentType === 'multicall' ? display : state.display;
      render(receiptScreen(config, receiptOfMulticall(sent, txHashes)));
      return;
    }
    // A transfer from another chain that failed or came back: the link is due again.
    if (state.kind === 'payable' && transferEnded(state.display, txHashes)) {
      forgetSent(token);
      render(errorScreen(TRANSFER_ENDED, () => payable(state.display)));
      return;
    }
    // Still pending (not yet confirmed), or the service is briefly unreachable: keep waiting.
    // A link that became invalid meanwhile says so.
    if (state.kind === 'invalidated' || state.kind === 'blocked' || state.kind === 'not_found') {
      render(stateScreen(state.kind));
      return;
    }
  }
}

const TRANSFER_ENDED =
  'The bridge could not deliver your payment from the other chain, so the link was not paid. Any tokens it returned are back in your wallet. You can pay again.';

/** Whether one of `txHashes` is a transfer from another chain that failed or was refunded. */
function transferEnded(display: Display, txHashes: readonly string[]): boolean {
  if (display.paymentType === 'multicall') return false;
  const sent = new Set(txHashes.map((hash) => hash.toLowerCase()));
  return (display.bridgeTransfers ?? []).some(
    (t) => sent.has(t.txHash.toLowerCase()) && (t.status === 'failed' || t.status === 'refunded'),
  );
}

/**
 * A Safe transaction pays the link once its owners have signed and one executed it: the page
 * says so and reads the link until tracking ends. Executed: the receipt; failed, replaced or
 * past its deadline: the link is payable again, and shows its summary.
 */
async function waitForSafe(pending: SafePending, progress: SafeProgress | null): Promise<void> {
  render(safePendingScreen(pending, progress));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, SAFE_EVERY_MS));
    const state = await api.link(token);
    // Still signing, or the service briefly unreachable: keep waiting.
    if (state.kind === 'safe_pending' || state.kind === 'error') continue;
    if (state.kind === 'payable') payable(state.display);
    else showState(state);
    return;
  }
}

/** Link tokens are ULIDs: anything else (a link copied in part, say) names no payment. */
const TOKEN = /^[0-9A-Za-z]{26}$/;

async function load(): Promise<void> {
  if (!TOKEN.test(token)) {
    render(stateScreen('not_found'));
    return;
  }
  render(loadingScreen());
  // The wallet code downloads while the link loads; it runs once the summary shows.
  walletCode().catch(() => {});
  const state = await api.link(token);
  if (state.kind === 'payable') payable(state.display);
  else showState(state);
}

/** A link intent's page (`/link/<accessToken>`): the token, as sent; null elsewhere. */
function intentToken(): string | null {
  const segment = /\/link\/([^/]+)$/.exec(location.pathname)?.[1];
  if (segment === undefined) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

// A recurring payout's page (`?recurring=<pay token>`), a commerce payment's
// (`?commerce=<pay token>`), and a link intent's: their own chunks, loaded only there.
const query = new URLSearchParams(location.search);
const recurring = query.get('recurring');
const commerce = query.get('commerce');
const intent = intentToken();
const pageFailed = () =>
  render(errorScreen('The page could not load. Check your connection.', () => location.reload()));
if (intent !== null) {
  import('./link-intent/page.ts').then(
    (page) => page.showLinkIntent(config, root, intent),
    pageFailed,
  );
} else if (recurring !== null) {
  import('./recurring/page.ts').then(
    (page) => page.showRecurring(config, root, recurring.trim()),
    pageFailed,
  );
} else if (commerce !== null) {
  import('./commerce/page.ts').then(
    (page) => page.showCommerce(config, root, commerce.trim()),
    pageFailed,
  );
} else void load();
