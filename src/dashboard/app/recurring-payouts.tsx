import { useCallback, useEffect, useState } from 'preact/hooks';
import { call } from './api.ts';
import { Problem, useChange } from './change.tsx';
import { currencyName, type DashboardConfig } from './config.ts';
import { Confirmable } from './confirmable.tsx';
import { formatTime } from './format.ts';
import { ListStatus } from './list-status.tsx';
import { type Listed, readList } from './listed.ts';
import { type Made, SendPayouts } from './send-payouts.tsx';
import { Table } from './table.tsx';
import type { Call } from './wallet-send.ts';

/** A recurring payout as `GET /v2/payouts/recurring` lists it. */
interface Recurring {
  readonly id: string;
  readonly status: 'pending' | 'active' | 'paused' | 'completed' | 'cancelled';
  readonly frequency: string;
  readonly amount: string;
  readonly currency: string;
  readonly network: string;
  readonly payee: string;
  readonly processedPayments: number;
  readonly totalPayments: number;
  readonly nextPaymentDate: string | null;
  readonly failureReason: string | null;
  /** The payer's page, where a pending schedule is approved and signed. */
  readonly payUrl: string;
}

/** What a recurring payout's status is called here. */
const RECURRING_WORDS: Readonly<Record<Recurring['status'], string>> = {
  pending: 'Waiting for the payer',
  active: 'Active',
  paused: 'Paused',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

/** The account's recurring payouts, with their next date; cancel one, or unpause one. */
export function RecurringPayouts(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
}) {
  const { config, ended } = props;
  const [listed, setListed] = useState<Listed<Recurring>>({ kind: 'loading' });
  const [confirming, setConfirming] = useState<string | null>(null);
  const [lowering, setLowering] = useState<Made | null>(null);
  const load = useCallback(() => {
    const read = call<{ recurringPayouts: Recurring[] }>(
      config.apiBase,
      '/v2/payouts/recurring?limit=100',
    ).then((answer) => answer.recurringPayouts);
    readList(read, setListed, ended);
  }, [config, ended]);
  useEffect(load, [load]);
  const { busy, problem, change } = useChange(() => {
    setConfirming(null);
    load();
  }, ended);
  const act = (recurring: Recurring, action: 'cancel' | 'unpause') =>
    void change(async () => {
      setLowering(null);
      const answer = await call<{ transactions?: Call[] }>(
        config.apiBase,
        `/v2/payouts/recurring/${encodeURIComponent(recurring.id)}`,
        { method: 'PATCH', body: { action } },
      );
      const network = config.networks.find((n) => n.id === recurring.network);
      // A cancellation answers the approval that lowers the proxy's allowance, if any.
      if (network && answer.transactions && answer.transactions.length > 0) {
        setLowering({ network, requestIds: [], calls: answer.transactions });
      }
    });

  return (
    <section aria-labelledby="recurring">
      <h2 id="recurring">Recurring payouts</h2>
      <Problem problem={problem} />
      {lowering !== null && (
        <SendPayouts
          config={config}
          made={lowering}
          title="Cancelled. To stop the schedule's contract spending your token, send this approval"
          sentText="Sent: the schedule's contract may no longer spend what it would have paid."
        />
      )}
      <ListStatus
        listed={listed}
        loading="Loading the recurring payouts…"
        empty="No recurring payouts yet. Your server makes them through the API (POST /v2/payouts with a recurrence); here you follow, cancel or unpause them."
      />
      {listed.kind === 'listed' && listed.items.length > 0 && (
        <Table
          caption="Recurring payouts"
          columns={['Payee', 'Each', 'Payments', 'Next', 'Status', 'Action']}
          rows={listed.items.map((recurring) => ({
            key: recurring.id,
            id: recurring.id,
            cells: [
              <code key="payee">{recurring.payee}</code>,
              `${recurring.amount} ${currencyName(config, recurring.currency)}, ${recurring.frequency.toLowerCase()}`,
              `${recurring.processedPayments} of ${recurring.totalPayments}`,
              recurring.nextPaymentDate === null ? '—' : formatTime(recurring.nextPaymentDate),
              recurring.status === 'pending' ? (
                <span key="status">
                  {RECURRING_WORDS.pending} (
                  <a href={recurring.payUrl} target="_blank" rel="noreferrer">
                    the payer's page
                  </a>
                  )
                </span>
              ) : recurring.failureReason === null ? (
                RECURRING_WORDS[recurring.status]
              ) : (
                `${RECURRING_WORDS[recurring.status]}: ${recurring.failureReason}`
              ),
              recurring.status === 'paused' ? (
                <button
                  type="button"
                  class="quiet"
                  key="unpause"
                  disabled={busy}
                  onClick={() => act(recurring, 'unpause')}
                >
                  Unpause
                </button>
              ) : recurring.status === 'completed' || recurring.status === 'cancelled' ? (
                '—'
              ) : (
                <Confirmable
                  key="cancel"
                  asking={confirming === recurring.id}
                  label="Cancel"
                  warning="No payment after this."
                  confirm="Cancel it"
                  busy={busy}
                  onAsk={() => setConfirming(recurring.id)}
                  onConfirm={() => act(recurring, 'cancel')}
                  onKeep={() => setConfirming(null)}
                />
              ),
            ],
          }))}
        />
      )}
    </section>
  );
}
