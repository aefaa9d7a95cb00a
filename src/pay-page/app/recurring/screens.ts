import type { PageConfig } from '../config.ts';
import { h } from '../dom.ts';
import { networkName, sumDecimals, symbolOf } from '../format.ts';
import { card } from '../screens.ts';
import type { Frequency, RecurringStatus, RecurringView } from './api.ts';

/**
 * The screens of a recurring payout: the schedule (what is paid, to whom, how often, on which
 * dates, where it stands), with a slot for the wallets while it waits for its payer's
 * signature, and the steps of approving and signing. Text only, as every screen (dom.ts).
 */

const EVERY: Record<Frequency, string> = {
  DAILY: 'Every day',
  WEEKLY: 'Every week',
  MONTHLY: 'Every month',
  YEARLY: 'Every year',
};

/** How many of the dates still to come are listed; the rest are counted. */
const DATES_SHOWN = 6;

const TITLES: Record<RecurringStatus, string> = {
  pending: 'Approve a recurring payment',
  active: 'Recurring payment active',
  paused: 'Recurring payment paused',
  completed: 'Recurring payment completed',
  cancelled: 'Recurring payment cancelled',
};

const WORDS: Record<RecurringStatus, string> = {
  pending:
    'Your wallet allows the payment contract to send these payments, and signs the schedule once. Each payment is then made on its date without asking you again; nothing is sent before the first date.',
  active:
    'The schedule is signed. Each payment is made on its date; you do not need to do anything.',
  paused:
    'A payment could not be made (check the balance and the allowance of the paying wallet). The merchant resumes the schedule; the missed payments are then made.',
  completed: 'Every payment of this schedule was made. Nothing more will be sent.',
  cancelled: 'This schedule was cancelled. Nothing more will be sent.',
};

/** A date in the payer's own words and time zone; `datetime` keeps the exact instant. */
function dateOf(iso: string): HTMLTimeElement {
  const text = new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return h('time', { datetime: iso }, text);
}

/** What the list of dates is called; an ended schedule has none left. */
const DATES: Partial<Record<RecurringStatus, string>> = {
  pending: 'Payment dates',
  active: 'Dates to come',
  // Missed dates are made up once the merchant resumes it.
  paused: 'Payments left',
};

/** The dates of the payments not made yet, the first few of them listed, under their title. */
function upcoming(view: RecurringView): HTMLElement[] {
  const title = DATES[view.status];
  const left = view.paymentDates.slice(view.processedPayments);
  if (title === undefined || left.length === 0) return [];
  const shown = left.slice(0, DATES_SHOWN);
  const more = left.length - shown.length;
  const last = left.at(-1) ?? '';
  return [
    h('h2', {}, title),
    h(
      'ol',
      { class: 'lines', 'aria-label': title, 'data-field': 'dates' },
      ...shown.map((iso) => h('li', { class: 'line' }, dateOf(iso))),
      more > 0
        ? h('li', { class: 'line muted' }, `and ${more} more, the last on `, dateOf(last))
        : null,
    ),
  ];
}

export interface ScheduleParts {
  /** Where the wallet code puts its buttons (a pending schedule only). */
  readonly wallets?: HTMLElement | undefined;
  /** Why the last attempt failed, in words. */
  readonly problem?: string | undefined;
}

export function scheduleScreen(config: PageConfig, view: RecurringView, parts: ScheduleParts = {}) {
  const symbol = symbolOf(view.currency);
  const fee = view.feeAmount !== '0' ? view.feeAmount : null;
  const each = fee ? (sumDecimals([view.amount, fee]) ?? view.amount) : view.amount;
  const total = sumDecimals(Array(view.totalPayments).fill(each));
  const screen = card(
    `recurring-${view.status}`,
    TITLES[view.status],
    h(
      'p',
      { class: 'amount' },
      h('span', { 'data-field': 'amount' }, `${view.amount} ${symbol}`),
      ' ',
      h('span', { 'data-field': 'frequency' }, EVERY[view.frequency].toLowerCase()),
    ),
    h('p', { class: 'muted', 'data-field': 'status-words' }, WORDS[view.status]),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'To'),
      h('dd', {}, h('code', { 'data-field': 'payee' }, view.payee)),
      h('dt', {}, 'From'),
      h('dd', {}, h('code', { 'data-field': 'payer' }, view.payer)),
      h('dt', {}, 'Network'),
      h('dd', { 'data-field': 'network' }, networkName(config, view.network)),
      fee ? h('dt', {}, 'Fee per payment') : null,
      fee ? h('dd', { 'data-field': 'fee' }, `${fee} ${symbol}`) : null,
      h('dt', {}, 'Payments'),
      h(
        'dd',
        { 'data-field': 'payments' },
        view.status === 'pending'
          ? String(view.totalPayments)
          : `${view.processedPayments} of ${view.totalPayments} made`,
      ),
      total ? h('dt', {}, 'In all') : null,
      total ? h('dd', { 'data-field': 'total' }, `${total} ${symbol}`) : null,
      h('dt', {}, 'First payment'),
      h('dd', { 'data-field': 'first-date' }, dateOf(view.paymentDates[0] ?? view.startDate)),
      view.nextPaymentDate && view.status !== 'pending' ? h('dt', {}, 'Next payment') : null,
      view.nextPaymentDate && view.status !== 'pending'
        ? h('dd', { 'data-field': 'next-date' }, dateOf(view.nextPaymentDate))
        : null,
    ),
    ...upcoming(view),
    parts.problem ? h('p', { class: 'problem', role: 'alert' }, parts.problem) : null,
    parts.wallets ?? null,
  );
  if (view.status === 'active' || view.status === 'completed') {
    screen.prepend(h('div', { class: 'badge', 'aria-hidden': 'true' }, '✓'));
  } else if (view.status !== 'pending') {
    screen.prepend(h('div', { class: 'badge neutral', 'aria-hidden': 'true' }, '!'));
  }
  return screen;
}

/** One step of setting the schedule up: an approval, or the signature. */
export function stepScreen(step: number, total: number, action: string, detail: string) {
  return card(
    'recurring-step',
    total > 1 ? `Step ${step} of ${total}` : 'One step',
    h('progress', { max: String(total), value: String(step - 1), 'aria-label': 'Steps done' }),
    h('p', { class: 'step' }, action),
    h('p', { class: 'muted', role: 'status' }, detail),
    h('div', { class: 'spinner', 'aria-hidden': 'true' }),
  );
}
