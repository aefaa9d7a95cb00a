import type { WalletChoice } from '../../../web/eip6963.ts';
import { ApiError } from '../answer.ts';
import { applyBranding, brandingChrome } from '../branding.ts';
import type { PageConfig } from '../config.ts';
import { h, show } from '../dom.ts';
import { connectingScreen } from '../screens.ts';
import { offerWallets, walletsSlot } from '../wallet/offer.ts';
import { explain } from '../wallet/problems.ts';
import { createIntentApi, type Destination, type IntentApi, type IntentFacts } from './api.ts';
import {
  acceptingScreen,
  type DestinationChoice,
  intentScreen,
  linkedScreen,
  type Refusal,
  readingScreen,
  refusalScreen,
  signInScreen,
  signingScreen,
} from './screens.ts';
import { SIGN_IN_WORDS, signIn } from './sign-in.ts';

/**
 * The page of a link intent (`PAY_URL/link/<accessToken>`), where a merchant accepts a
 * platform's invitation: it signs in with its wallet (the auth API reads an intent only for a
 * session), sees which platform asks and what it may do, in the platform's branding, keeps its
 * wallet's destination or picks a token for a new one, and accepts: the auth API creates the
 * client ID, links it and tells the platform (`client_id.linked`). A used, expired or unknown
 * invitation says so.
 */

/** Access tokens are `lki_` and 43 base64url characters: anything else names no invitation. */
const ACCESS_TOKEN = /^lki_[A-Za-z0-9_-]{43}$/;

const REFUSED: Readonly<Record<string, Refusal>> = {
  link_intent_used: 'used',
  link_intent_expired: 'expired',
  link_intent_not_found: 'not_found',
};

const SIGNED_OUT = 'Your sign-in has ended. Sign in again to continue.';
const UNREACHABLE = 'The service could not be reached. Check your connection and try again.';

/** Where the page's own files are: PAY_URL's path, before `/link/<token>`. */
function pageBase(): string {
  const path = location.pathname;
  return path.slice(0, path.lastIndexOf('/link/'));
}

/** Wears the platform's branding: its colors, its logo above the card, its legal links below. */
function wear(root: HTMLElement, facts: IntentFacts): void {
  applyBranding(document.documentElement, facts.branding);
  const { logo, legal } = brandingChrome(facts.branding, pageBase());
  if (logo && !document.querySelector('img.logo')) root.before(logo);
  if (legal && !document.querySelector('footer.legal')) root.after(legal);
}

interface Session {
  readonly address: string;
  readonly chainId: number | undefined;
  readonly token: string;
  readonly facts: IntentFacts;
  current: Destination | null;
}

export function showLinkIntent(config: PageConfig, root: HTMLElement, token: string): void {
  const render = (screen: HTMLElement) => show(root, screen);
  const authBase = config.intent?.authBase;
  if (authBase === undefined || !ACCESS_TOKEN.test(token)) {
    render(refusalScreen('not_found'));
    return;
  }
  const api: IntentApi = createIntentApi(authBase);

  /** What went wrong, in words, or the screen that says the invitation cannot be accepted. */
  const failed = (error: unknown, retry: (problem: string) => void): void => {
    if (error instanceof ApiError) {
      const refusal = error.code === undefined ? undefined : REFUSED[error.code];
      if (refusal) render(refusalScreen(refusal));
      else if (error.status === 401) start(SIGNED_OUT);
      else retry(`The service answered: ${error.message}`);
      return;
    }
    const lost =
      error instanceof TypeError ||
      (error instanceof DOMException && error.name === 'TimeoutError');
    retry(lost ? UNREACHABLE : explain(error, SIGN_IN_WORDS));
  };

  const start = (problem?: string): void => {
    const wallets = walletsSlot('Sign in with');
    render(signInScreen({ wallets, problem }));
    offerWallets(
      wallets,
      (name) => `Sign in with ${name}`,
      (wallet) => void enter(wallet),
    );
  };

  const enter = async (wallet: WalletChoice): Promise<void> => {
    try {
      render(connectingScreen(wallet.name));
      const signed = await signIn(api, wallet, () => render(signingScreen(wallet.name)));
      render(readingScreen());
      const facts = await api.facts(signed.session, token);
      wear(root, facts);
      const current = await api.destination(signed.session);
      const { address, chainId } = signed;
      present({ address, chainId, token: signed.session, facts, current });
    } catch (error) {
      failed(error, start);
    }
  };

  const present = (session: Session, problem?: string): void => {
    const accept = h(
      'button',
      { class: 'button', type: 'button', 'data-action': 'accept' },
      'Accept and link',
    );
    const destination: DestinationChoice = {
      current: session.current,
      wallet: session.address,
      chainId: session.chainId,
    };
    const screen = intentScreen(config, session.facts, { destination, accept, problem });
    accept.addEventListener('click', () => void complete(session, screen), { once: true });
    render(screen);
  };

  const complete = async (session: Session, screen: HTMLElement): Promise<void> => {
    // The token chosen for a new destination, read before the screen is replaced.
    const chosen = screen.querySelector<HTMLSelectElement>('#intent-currency')?.value ?? '';
    if (session.current === null && chosen === '') {
      present(session, 'This service offers no token to be paid in: ask its operator.');
      return;
    }
    try {
      render(acceptingScreen(session.facts.orchestrator.name || 'the platform'));
      if (session.current === null) {
        const [chainId = '', tokenAddress = ''] = chosen.split(':');
        session.current = await api.createDestination(session.token, Number(chainId), tokenAddress);
      }
      const linked = await api.complete(session.token, token, session.current.destinationId);
      render(linkedScreen(session.facts, linked));
    } catch (error) {
      failed(error, (problem) => present(session, problem));
    }
  };

  start();
}
