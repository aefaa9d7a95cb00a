import type { BlockReason, MulticallChild, MulticallDisplay } from './api.ts';
import type { PageConfig } from './config.ts';
import { h } from './dom.ts';
import { networkName, symbolOf, timeLeft } from './format.ts';
import { card } from './screens.ts';

/**
 * A multicall payout's summary: every recipient with its amount and where it stands (sent in
 * this transaction, paid already, or left out and why), and the totals per currency of what
 * is sent now. Only the creator's wallet can send it, as for any payout link.
 */

/** Where a child stands, in a word or two that fits beside its amount on a phone. */
const LEFT_OUT: Readonly<Record<Exclude<BlockReason, 'already_paid'>, string>> = {
  secure_payment_expired: 'Not sent: expired',
  secure_payment_not_pending: 'Not sent: withdrawn',
  compliance_failed: 'Not sent: blocked by screening',
  request_processing: 'Not sent: in another payout',
  not_payable_child: 'Not sent: cannot be batched',
  not_found: 'Not sent: not found',
  not_owned: 'Not sent: not found',
  not_outgoing: 'Not sent: not a payout',
  not_single_payment: 'Not sent: not a single payout',
  invalid_child_linkage: 'Not sent: another wallet or network',
};

type Standing = 'due' | 'paid' | 'blocked';

/** Whether the children due are on several networks: paid from one chain the creator picks. */
export function spansNetworks(display: MulticallDisplay): boolean {
  const due = display.children.filter((child) => child.executable);
  return new Set(due.map((child) => child.network)).size > 1;
}

function standingOf(child: MulticallChild, symbol: string): readonly [Standing, string] {
  if (child.executable) {
    // Paid in part already: only what it still wants is sent.
    const part = child.due !== null && child.due !== child.amount;
    return ['due', part ? `To send: ${child.due} ${symbol} left` : 'To send'];
  }
  if (child.blockReason === 'already_paid') return ['paid', 'Paid'];
  return ['blocked', child.blockReason ? LEFT_OUT[child.blockReason] : 'Not sent'];
}

function childItem(config: PageConfig, child: MulticallChild, spans: boolean): HTMLElement {
  const symbol = symbolOf(child.paymentCurrency ?? '');
  const [standing, words] = standingOf(child, symbol);
  return h(
    'li',
    { class: 'line', 'data-state': standing },
    h(
      'div',
      { class: 'line-head' },
      // A payout merged into a batch since has handed its amount and payee to it.
      h(
        'span',
        { class: 'amount', 'data-field': 'amount' },
        child.amount === null ? 'No amount' : `${child.amount} ${symbol}`,
      ),
      h('span', { class: `state ${standing}`, 'data-field': 'state' }, words),
    ),
    child.payee
      ? h('span', { class: 'label' }, spans ? `To, on ${networkName(config, child.network)}` : 'To')
      : null,
    child.payee ? h('code', { 'data-field': 'payee' }, child.payee) : null,
    child.reference
      ? h('span', { class: 'muted', 'data-field': 'reference' }, `Reference ${child.reference}`)
      : null,
  );
}

/** "4 USDC", "4 USDC and 1.5 DAI", "4 USDC, 1.5 DAI and 2 USDT". */
function sumText(totals: readonly string[]): string {
  const last = totals.at(-1) ?? '';
  return totals.length > 1 ? `${totals.slice(0, -1).join(', ')} and ${last}` : last;
}

export interface MulticallParts {
  /** Where the wallet code puts its buttons; null when nothing can be sent. */
  readonly wallets: HTMLElement | null;
  readonly problem?: string | undefined;
}

export function multicallScreen(
  config: PageConfig,
  display: MulticallDisplay,
  parts: MulticallParts,
): HTMLElement {
  const { children, totals } = display;
  const sending = children.filter((child) => child.executable).length;
  const amounts = totals.byDestinationCurrency.map(
    (total) => `${total.totalAmount} ${symbolOf(total.currency)}`,
  );
  const creator = display.creatorWalletAddress ?? null;
  const network = h('strong', { 'data-field': 'network' }, networkName(config, display.network));
  const spans = spansNetworks(display);
  return card(
    'pending',
    display.canExecute
      ? `Send ${sumText(amounts)} to ${sending} recipient${sending === 1 ? '' : 's'}`
      : 'Nothing left to send',
    h(
      'p',
      { class: 'payout', 'data-field': 'payout' },
      'Multicall payout',
      creator ? ': only the wallet that created it can send it.' : '',
    ),
    spans
      ? h(
          'p',
          { class: 'network', 'data-field': 'network' },
          'Payouts on several networks, paid from one chain and token you choose: a bridge carries each to its network.',
        )
      : h(
          'p',
          { class: 'network' },
          display.canExecute ? `${sending} payouts in one transaction on ` : 'On ',
          network,
        ),
    display.canExecute && sending < children.length
      ? h(
          'p',
          { 'data-field': 'left-out' },
          `Sends ${sending} of its ${children.length} payouts; the others are marked below.`,
        )
      : null,
    h(
      'ul',
      { class: 'lines', 'aria-label': 'Recipients' },
      ...children.map((child) => childItem(config, child, spans)),
    ),
    h(
      'dl',
      { class: 'facts' },
      creator ? h('dt', {}, 'From') : null,
      creator ? h('dd', {}, h('code', { 'data-field': 'creator' }, creator)) : null,
      amounts.length > 0 ? h('dt', {}, 'Total') : null,
      amounts.length > 0
        ? h(
            'dd',
            {},
            ...amounts.map((amount) =>
              h('span', { class: 'total', 'data-field': 'total' }, amount),
            ),
          )
        : null,
      h('dt', {}, 'Fees'),
      h('dd', {}, 'None'),
      h('dt', {}, 'Network fee'),
      h('dd', {}, 'Shown by your wallet'),
      h('dt', {}, 'Expires in'),
      h('dd', { 'data-field': 'expires' }, timeLeft(display.expiresAt)),
    ),
    display.canExecute
      ? null
      : h(
          'p',
          { role: 'status' },
          'None of its payouts can be sent now: each says why above. Create a new payout for those still due.',
        ),
    parts.problem ? h('p', { class: 'problem', role: 'alert' }, parts.problem) : null,
    parts.wallets,
  );
}
