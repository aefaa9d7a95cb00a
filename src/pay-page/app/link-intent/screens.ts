import type { PageConfig } from '../config.ts';
import { h } from '../dom.ts';
import { networkName, timeLeft } from '../format.ts';
import { card } from '../screens.ts';
import type { Destination, IntentFacts, KytProvider, Linked } from './api.ts';

/**
 * The screens of a link intent's page: signing in, what the platform asks (and the
 * destination its payments would go to), the new client ID, and why an invitation cannot be
 * accepted. Text only, as every screen (dom.ts): a platform's name is shown, never parsed.
 */

type Content = Node | string | null | false;

const spinner = () => h('div', { class: 'spinner', 'aria-hidden': 'true' });

/** ✓ above a done screen's heading, ! above a refusal's (as the payment screens have). */
function marked(screen: HTMLElement, mark: '✓' | '!'): HTMLElement {
  const badge = h(
    'div',
    { class: mark === '✓' ? 'badge' : 'badge neutral', 'aria-hidden': 'true' },
    mark,
  );
  screen.prepend(badge);
  return screen;
}

function problemOf(problem: string | undefined): Content {
  return problem ? h('p', { class: 'problem', role: 'alert' }, problem) : null;
}

export function signInScreen(parts: { wallets: HTMLElement; problem?: string | undefined }) {
  return card(
    'intent-sign-in',
    'Link your account to a platform',
    h(
      'p',
      {},
      'A platform invites you to open a client ID linked to it, so that it can create payment links for you. Sign in with your wallet to see which platform asks, and what it may do.',
    ),
    h('p', { class: 'muted' }, 'Signing in sends nothing and costs no network fee.'),
    problemOf(parts.problem),
    parts.wallets,
  );
}

export function signingScreen(walletName: string): HTMLElement {
  return card(
    'intent-signing',
    'Sign in',
    h(
      'p',
      { role: 'status' },
      `Sign the message in ${walletName}. It proves that this wallet is yours; it sends nothing and costs no network fee.`,
    ),
    spinner(),
  );
}

export function readingScreen(): HTMLElement {
  return card('loading', 'Loading the invitation…', h('p', { class: 'muted' }, 'One moment.'));
}

const PROVIDERS: Readonly<Record<string, string>> = {
  hypernative: 'Hypernative',
  merklescience: 'Merkle Science',
};

/** "Hypernative, then Merkle Science if it fails", or "None". */
function screening(providers: readonly KytProvider[] | undefined): string {
  const names = [...(providers ?? [])]
    .sort((a, b) => a.priority - b.priority)
    .map((p) => PROVIDERS[p.provider] ?? p.provider);
  if (names.length === 0) return 'None';
  const [first, ...backups] = names;
  return backups.length > 0 ? `${first}, then ${backups.join(', ')} if it fails` : (first ?? '');
}

export interface DestinationChoice {
  /** The wallet's active destination, used as it is; null: the merchant picks a token. */
  readonly current: Destination | null;
  /** The signed-in wallet, where a new destination pays. */
  readonly wallet: string;
  /** The wallet's chain: its first token is offered first. */
  readonly chainId: number | undefined;
}

/** Where payments of the linked client ID go, in words, with its token on its network. */
function tokenWords(config: PageConfig, chainId: number, tokenAddress: string): string {
  for (const [id, network] of Object.entries(config.networks)) {
    if (network.chainId !== chainId) continue;
    const token = config.intent?.currencies[id]?.find(
      (c) => c.address.toLowerCase() === tokenAddress.toLowerCase(),
    );
    return `${token?.symbol ?? tokenAddress} on ${networkName(config, id)}`;
  }
  return `${tokenAddress} on chain ${chainId}`;
}

/**
 * The destination part of the screen: the wallet's active destination, or a choice of token
 * and network for a new one (the curated tokens the server gave the page).
 */
function destinationPart(config: PageConfig, choice: DestinationChoice): HTMLElement {
  if (choice.current) {
    const { current } = choice;
    return h(
      'section',
      { class: 'destination', 'aria-label': 'Where payments go' },
      h('h2', {}, 'Payments go to'),
      h('p', {}, h('code', { 'data-field': 'wallet' }, current.walletAddress)),
      h(
        'p',
        { 'data-field': 'token' },
        `in ${tokenWords(config, current.chainId, current.tokenAddress)}`,
      ),
      h(
        'p',
        { class: 'muted' },
        'Your wallet’s payee destination. To be paid elsewhere, change it in your account first.',
      ),
    );
  }
  const select = h('select', { id: 'intent-currency', name: 'currency' });
  for (const [id, tokens] of Object.entries(config.intent?.currencies ?? {})) {
    const network = config.networks[id];
    if (!network) continue;
    const group = h('optgroup', { label: network.name });
    for (const [i, token] of tokens.entries()) {
      const first = i === 0 && network.chainId === choice.chainId;
      group.append(
        h(
          'option',
          { value: `${network.chainId}:${token.address}`, ...(first && { selected: '' }) },
          `${token.symbol} on ${network.name}`,
        ),
      );
    }
    if (group.childElementCount > 0) select.append(group);
  }
  return h(
    'section',
    { class: 'destination', 'aria-label': 'Where payments go' },
    h('h2', {}, 'Payments go to'),
    h('p', {}, 'Your wallet ', h('code', { 'data-field': 'wallet' }, choice.wallet)),
    h('label', { for: 'intent-currency' }, 'Receive payments in'),
    select,
  );
}

export function intentScreen(
  config: PageConfig,
  facts: IntentFacts,
  parts: {
    readonly destination: DestinationChoice;
    readonly accept: HTMLButtonElement;
    readonly problem?: string | undefined;
  },
): HTMLElement {
  const { intent, orchestrator } = facts;
  const name = orchestrator.name || 'A platform';
  const domains = intent.allowedDomains;
  return card(
    'intent',
    `${name} asks to link your account`,
    h(
      'p',
      {},
      `Accepting creates a client ID in your account, named as below, and links it to ${name}. ${name} may then create payment links for you with it and take its fees on them; its branding shows on their pages. You can unlink it from your account at any time.`,
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Platform'),
      h('dd', { 'data-field': 'platform' }, name),
      h('dt', {}, 'Client ID name'),
      h('dd', { 'data-field': 'client-id-name' }, intent.clientIdName),
      h('dt', {}, 'Websites'),
      h(
        'dd',
        { 'data-field': 'domains' },
        domains.length > 0 ? domains.join(', ') : 'None: for the platform’s servers only',
      ),
      h('dt', {}, 'Payer screening'),
      h('dd', { 'data-field': 'kyt' }, screening(intent.kyt?.providers)),
      intent.externalId ? h('dt', {}, 'Their reference') : null,
      intent.externalId ? h('dd', { 'data-field': 'reference' }, intent.externalId) : null,
      h('dt', {}, 'Expires in'),
      h('dd', { 'data-field': 'expires' }, timeLeft(intent.expiresAt)),
    ),
    destinationPart(config, parts.destination),
    problemOf(parts.problem),
    parts.accept,
  );
}

export function acceptingScreen(name: string): HTMLElement {
  return card(
    'intent-accepting',
    'Linking your account',
    h('p', { role: 'status' }, `Creating your client ID and linking it to ${name}…`),
    spinner(),
  );
}

export function linkedScreen(facts: IntentFacts, linked: Linked): HTMLElement {
  const name = facts.orchestrator.name || 'the platform';
  const screen = card(
    'linked',
    `Linked to ${name}`,
    h('p', {}, `Your new client ID is linked to ${name}, and ${name} has been told.`),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Client ID'),
      h('dd', {}, h('code', { 'data-field': 'client-id' }, linked.clientId.clientId)),
      h('dt', {}, 'Name'),
      h('dd', { 'data-field': 'label' }, linked.clientId.label),
      h('dt', {}, 'Paid to'),
      h('dd', {}, h('code', { 'data-field': 'destination' }, linked.clientId.payeeDestinationId)),
    ),
    h('p', { class: 'muted' }, 'You can close this page.'),
  );
  return marked(screen, '✓');
}

export type Refusal = 'used' | 'expired' | 'not_found';

const REFUSALS: Record<Refusal, readonly [title: string, words: string]> = {
  used: [
    'This invitation has been used',
    'An invitation links one client ID, once. If that was not you, ask the platform for a new invitation.',
  ],
  expired: [
    'This invitation has expired',
    'Invitations last two days. Ask the platform for a new one.',
  ],
  not_found: ['Invitation not found', 'Check that you opened the whole link you were sent.'],
};

export function refusalScreen(kind: Refusal): HTMLElement {
  const [title, words] = REFUSALS[kind];
  return marked(card(`intent-${kind}`, title, h('p', {}, words)), '!');
}
