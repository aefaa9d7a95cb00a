import type { Completed, FeePlan, MulticallDisplay } from './api.ts';
import type { PageConfig } from './config.ts';
import { h } from './dom.ts';
import { explorerLink, networkName, sumDecimals, symbolOf } from './format.ts';
import { card, marked } from './screens.ts';

/**
 * A paid link's screen is its receipt: what was paid, to whom, when, the fees, the
 * transactions with their explorer links, under the platform's branding; printable on one page
 * (styles.css, `@media print`). Read from the completed link's answer, so it is the same right
 * after paying and for a payer who comes back to the link later.
 */

/**
 * One fee of a payment, as the receipt lists it: a fee leg as paid on chain (`paid` or
 * `outstanding`, with its transaction), or, for a link whose plan has no legs on chain, the
 * plan's fee (`status` null, in USD).
 */
interface FeeLeg {
  readonly type: string;
  readonly label: string;
  readonly feeBearer: 'payer' | 'payee';
  readonly amount: string;
  readonly currency: string;
  readonly status: 'paid' | 'outstanding' | null;
  readonly txHash: string | null;
}

function feeLegsOfPlan(plan: FeePlan | undefined): FeeLeg[] {
  return (plan?.fees ?? []).map((fee) => ({
    type: fee.type,
    label: fee.label,
    feeBearer: fee.feeBearer,
    amount: fee.calculatedAmountUsd,
    currency: 'USD',
    status: null,
    txHash: null,
  }));
}

interface Redirect {
  readonly url: string;
  readonly label: string;
}

interface ReceiptLine {
  readonly amount: string;
  /** A currency id (`USDC-base`) or a fiat code (`USD`). */
  readonly currency: string;
  readonly payee: string;
}

export interface Receipt {
  readonly network: string | null;
  readonly lines: readonly ReceiptLine[];
  /** When it was paid (the block's time); null where not known. */
  readonly paidAt: string | null;
  readonly reference: string | null;
  readonly fees: readonly FeeLeg[];
  readonly txHashes: readonly string[];
  readonly redirect: Redirect | null;
}

/**
 * The receipt of a completed link's answer. `sent`: the transactions this page just sent, shown
 * where the answer names none (the approvals before a payment are not what the payer paid).
 */
export function receiptOfCompleted(completed: Completed, sent: readonly string[]): Receipt {
  const statuses = completed.requestStatuses;
  const recorded = statuses.flatMap((s) => (s.txHash ? [s.txHash] : []));
  return {
    network: completed.network ?? null,
    lines: statuses.flatMap((s) =>
      s.amount !== undefined && s.currency !== undefined && s.payee !== undefined
        ? [{ amount: s.amount, currency: s.currency, payee: s.payee }]
        : [],
    ),
    paidAt: completed.paidAt ?? null,
    reference: completed.reference ?? null,
    fees: completed.feeLegs?.length ? completed.feeLegs : feeLegsOfPlan(completed.feePlan),
    txHashes: recorded.length > 0 ? recorded : sent.slice(-1),
    redirect: completed.redirectUrl
      ? { url: completed.redirectUrl, label: completed.redirectLabel ?? '' }
      : null,
  };
}

/**
 * A multicall whose other payouts cannot be sent never completes: its receipt is of the payouts
 * this page just sent, paid about now (detection has just seen them).
 */
export function receiptOfMulticall(display: MulticallDisplay, sent: readonly string[]): Receipt {
  return {
    network: display.network,
    lines: display.children.flatMap((child) =>
      child.executable && child.payee && child.paymentCurrency
        ? [
            {
              amount: child.due ?? child.amount ?? '',
              currency: child.paymentCurrency,
              payee: child.payee,
            },
          ]
        : [],
    ),
    paidAt: new Date().toISOString(),
    reference: null,
    fees: [],
    txHashes: sent.slice(-1),
    redirect: display.redirectUrl
      ? { url: display.redirectUrl, label: display.redirectLabel }
      : null,
  };
}

/** "12.5 USDC", a batch in one currency its exact total; several currencies: a count. */
function totalOf(lines: readonly ReceiptLine[]): string | null {
  const [first] = lines;
  if (!first) return null;
  if (lines.every((line) => line.currency === first.currency)) {
    const sum = sumDecimals(lines.map((line) => line.amount));
    if (sum !== null) return `${sum} ${symbolOf(first.currency)}`;
  }
  return `${lines.length} payments`;
}

/** The block's time in the payer's own words and zone: "12 March 2026 at 14:05 CET". */
function dateOf(iso: string): HTMLElement {
  const shown = new Date(iso).toLocaleString(undefined, {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  });
  return h('time', { datetime: iso, 'data-field': 'paid-at' }, shown);
}

/** `fee`: a fee leg's own transaction, named apart from the payment's. */
function transactionOf(
  config: PageConfig,
  network: string | null,
  hash: string,
  of: 'payment' | 'fee' = 'payment',
): HTMLElement {
  const prefix = of === 'fee' ? 'fee-' : '';
  // The whole hash: a printed receipt has no link to follow.
  const text = h('code', { 'data-field': `${prefix}tx` }, hash);
  const href = network ? explorerLink(config, network, hash) : null;
  return href
    ? h(
        'a',
        {
          href,
          rel: 'noopener noreferrer',
          target: '_blank',
          'data-field': `${prefix}explorer`,
        },
        text,
      )
    : text;
}

const BEARER = { payer: 'paid by the payer', payee: 'paid by the payee' } as const;
const STATUS = { paid: 'Paid', outstanding: 'Outstanding' } as const;

/** Every fee of the payment, plan or leg alike; "None" when it had none. */
function feeList(config: PageConfig, network: string | null, fees: readonly FeeLeg[]) {
  if (fees.length === 0) return h('span', { 'data-field': 'fees' }, 'None');
  return h(
    'ul',
    { class: 'fees', 'data-field': 'fees' },
    ...fees.map((fee) =>
      h(
        'li',
        { 'data-field': 'fee', 'data-type': fee.type },
        h('span', { class: 'fee-label' }, fee.label),
        ` ${fee.amount} ${symbolOf(fee.currency)}, ${BEARER[fee.feeBearer]}`,
        fee.status ? h('span', { class: `state ${fee.status}` }, STATUS[fee.status]) : null,
        fee.txHash ? transactionOf(config, network, fee.txHash, 'fee') : null,
      ),
    ),
  );
}

/** The network of a currency id this page knows (`USDC-optimism`: `optimism`); null for fiat. */
function networkOfCurrency(config: PageConfig, currency: string): string | null {
  const at = currency.indexOf('-');
  const id = at < 0 ? '' : currency.slice(at + 1);
  return config.networks[id] ? id : null;
}

/** `where`: each line's network, when they are on several (a multicall paid across chains). */
function linesOf(
  receipt: Receipt,
  where: ((line: ReceiptLine) => string) | null,
): (HTMLElement | null)[] {
  const [only] = receipt.lines;
  if (only && receipt.lines.length === 1) {
    return [
      h('dt', {}, 'Amount'),
      h('dd', { 'data-field': 'amount' }, `${only.amount} ${symbolOf(only.currency)}`),
      h('dt', {}, 'To'),
      h('dd', {}, h('code', { 'data-field': 'payee' }, only.payee)),
    ];
  }
  if (receipt.lines.length === 0) return [];
  return [
    h('dt', {}, 'Payments'),
    h(
      'dd',
      {},
      h(
        'ul',
        { class: 'paid-lines' },
        ...receipt.lines.map((line) =>
          h(
            'li',
            {},
            h('span', { 'data-field': 'amount' }, `${line.amount} ${symbolOf(line.currency)}`),
            ' to ',
            h('code', { 'data-field': 'payee' }, line.payee),
            where ? h('span', { 'data-field': 'line-network' }, ` on ${where(line)}`) : null,
          ),
        ),
      ),
    ),
  ];
}

export function receiptScreen(config: PageConfig, receipt: Receipt): HTMLElement {
  const total = totalOf(receipt.lines);
  const hashes = [...new Set(receipt.txHashes)];
  // Payments on several networks: each line names its own, and no one network is the receipt's.
  const networks = new Set(receipt.lines.map((line) => networkOfCurrency(config, line.currency)));
  networks.delete(null);
  const several = networks.size > 1;
  const network = several ? null : receipt.network;
  const where = several
    ? (line: ReceiptLine) => networkName(config, networkOfCurrency(config, line.currency) ?? '')
    : null;
  // Only a web address becomes a link: never a `javascript:` one.
  const redirect =
    receipt.redirect && /^https?:\/\//i.test(receipt.redirect.url) ? receipt.redirect : null;
  const print = h(
    'button',
    { class: 'button secondary', type: 'button', 'data-action': 'print' },
    'Print receipt',
  );
  print.addEventListener('click', () => window.print());
  const screen = card(
    'completed',
    total ? `Paid ${total}` : 'Payment complete',
    h('p', {}, 'This payment is complete. Thank you. Keep this receipt for your records.'),
    h(
      'dl',
      { class: 'facts receipt', 'aria-label': 'Receipt' },
      ...linesOf(receipt, where),
      network ? h('dt', {}, 'Network') : null,
      network ? h('dd', { 'data-field': 'network' }, networkName(config, network)) : null,
      receipt.reference ? h('dt', {}, 'Reference') : null,
      receipt.reference ? h('dd', { 'data-field': 'reference' }, receipt.reference) : null,
      receipt.paidAt ? h('dt', {}, 'Date paid') : null,
      receipt.paidAt ? h('dd', {}, dateOf(receipt.paidAt)) : null,
      h('dt', {}, 'Fees'),
      h('dd', {}, feeList(config, network, receipt.fees)),
      hashes.length > 0 ? h('dt', {}, hashes.length > 1 ? 'Transactions' : 'Transaction') : null,
      hashes.length > 0
        ? h('dd', {}, ...hashes.map((hash) => transactionOf(config, network, hash)))
        : null,
    ),
    h(
      'div',
      { class: 'actions' },
      print,
      redirect
        ? h('a', { class: 'button', href: redirect.url, rel: 'noopener' }, redirect.label)
        : null,
    ),
  );
  return marked(screen, '✓');
}
