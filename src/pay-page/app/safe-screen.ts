import { h } from './dom.ts';
import { timeLeft } from './format.ts';
import type { SafePending, SafeProgress } from './safe-pending.ts';
import { card } from './screens.ts';

/** "Waiting for the Safe": whom the link waits for, the Safe transaction, and until when. */

/** "2026-12-06 14:05 UTC": the same for every payer and owner, whatever their time zone. */
function deadlineText(seconds: number): string {
  const iso = new Date(seconds * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function owed(progress: SafeProgress): string {
  const left = Math.max(progress.threshold - progress.signed, 0);
  return `${left} more owner${left === 1 ? '' : 's'}`;
}

export function safePendingScreen(pending: SafePending, progress: SafeProgress | null) {
  const deadline = pending.deadline;
  return card(
    'safe-pending',
    'Waiting for the Safe',
    h(
      'p',
      { role: 'status' },
      progress
        ? `You signed the Safe transaction. ${owed(progress)} of the Safe must sign the same transaction, then one of them executes it.`
        : 'This link is being paid from a Safe: its owners are signing the Safe transaction. This page updates once the Safe has executed it.',
    ),
    h(
      'dl',
      { class: 'facts' },
      progress ? h('dt', {}, 'Safe') : null,
      progress ? h('dd', {}, h('code', { 'data-field': 'safe' }, progress.safe)) : null,
      progress ? h('dt', {}, 'Signatures') : null,
      progress
        ? h('dd', { 'data-field': 'signatures' }, `${progress.signed} of ${progress.threshold}`)
        : null,
      h('dt', {}, 'Safe transaction'),
      h(
        'dd',
        {},
        // Whole: owners compare it with what their Safe app shows before they sign.
        h('code', { 'data-field': 'safe-tx-hash', class: 'hash' }, pending.safeTxHash),
      ),
      deadline !== null ? h('dt', {}, 'Deadline') : null,
      deadline !== null ? h('dd', { 'data-field': 'deadline' }, deadlineText(deadline)) : null,
      deadline !== null ? h('dt', {}, 'Time left') : null,
      deadline !== null
        ? h('dd', { 'data-field': 'deadline-left' }, timeLeft(new Date(deadline * 1000).toJSON()))
        : null,
    ),
    h(
      'p',
      { class: 'muted' },
      'Nothing has been proposed to the Safe app: the other owners sign this same Safe transaction with their own tools (the payment service hands it out in full while the link waits), check that its hash is the one above, and one of them executes it with enough signatures. If it is not executed before the deadline, nothing is paid and the link can be paid again.',
    ),
    h('div', { class: 'spinner', 'aria-hidden': 'true' }),
  );
}
