import type { MulticallChild, MulticallDisplay } from '../api.ts';
import type { PageConfig } from '../config.ts';
import { h } from '../dom.ts';
import { networkName, symbolOf } from '../format.ts';
import { card } from '../screens.ts';
import type { MulticallRoute } from './api.ts';
import { backButton, chainName, quoteLeft, type Source } from './screens.ts';

/**
 * A multicall payout's route from the source chain chosen: each payout due, where it goes and
 * how (through the bridge, or paid directly on the source chain), what the payer sends in all,
 * what the bridge takes, and until when the quote holds.
 */

/** Whether `child` is paid on the source chain in its token (no bridge). */
function direct(config: PageConfig, child: MulticallChild, source: Source): boolean {
  return (
    config.networks[child.network]?.intentChain === source.chain &&
    symbolOf(child.paymentCurrency ?? '') === source.token
  );
}

function childLine(config: PageConfig, child: MulticallChild, source: Source): HTMLElement {
  const symbol = symbolOf(child.paymentCurrency ?? '');
  const network = networkName(config, child.network);
  return h(
    'li',
    { class: 'line', 'data-state': 'due' },
    h(
      'div',
      { class: 'line-head' },
      h(
        'span',
        { class: 'amount', 'data-field': 'amount' },
        `${child.due ?? child.amount} ${symbol}`,
      ),
      h(
        'span',
        { class: 'state due', 'data-field': 'route' },
        direct(config, child, source) ? `Paid directly on ${network}` : `Bridged to ${network}`,
      ),
    ),
    child.payee ? h('code', { 'data-field': 'payee' }, child.payee) : null,
  );
}

export function multicallRouteScreen(
  config: PageConfig,
  chosen: {
    readonly source: Source;
    readonly route: MulticallRoute;
    readonly display: MulticallDisplay;
  },
  onPay: () => void,
  onBack: () => void,
): HTMLElement {
  const { source, route, display } = chosen;
  const { metadata } = route;
  const from = chainName(config, source.chain);
  const due = display.children.filter((child) => child.executable);
  const pay = h('button', { class: 'button', type: 'button', 'data-action': 'pay' }, 'Pay');
  pay.addEventListener('click', onPay, { once: true });
  const gas = metadata.costBreakdown?.totalGasFee;
  const here = due.some((child) => direct(config, child, source));
  return card(
    'route',
    `Pay ${due.length} payouts from ${from}`,
    h(
      'ul',
      { class: 'lines', 'aria-label': 'Recipients' },
      ...due.map((child) => childLine(config, child, source)),
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'You send'),
      h(
        'dd',
        { 'data-field': 'source-amount' },
        `${metadata.sourceAmount ?? '?'} ${source.token} on ${from}`,
      ),
      h('dt', {}, 'Bridge fees'),
      h('dd', { 'data-field': 'bridge-fee' }, `${metadata.bridgeFeeAmount ?? '0'} ${source.token}`),
      gas ? h('dt', {}, 'Network fee') : null,
      gas
        ? h('dd', { 'data-field': 'network-fee' }, `about ${gas.amountNative} ${gas.currency}`)
        : null,
      metadata.quoteExpiresAt === undefined ? null : h('dt', {}, 'Quote holds'),
      metadata.quoteExpiresAt === undefined
        ? null
        : h('dd', { 'data-field': 'quote-expires' }, quoteLeft(metadata.quoteExpiresAt)),
    ),
    h(
      'p',
      { class: 'muted' },
      `Your wallet switches to ${from}, approves the bridge and sends one transfer per payout on another network${here ? `, then pays those on ${from} in one batch` : ''}: ${route.transactions.length} transactions. If the bridge cannot deliver, it returns the ${source.token} to you.`,
    ),
    pay,
    backButton(onBack),
  );
}
