import { useCallback, useEffect, useState } from 'preact/hooks';
import { call } from './api.ts';
import { Problem, useChange } from './change.tsx';
import type { DashboardConfig } from './config.ts';
import { formatTime } from './format.ts';
import { ListStatus } from './list-status.tsx';
import { type Listed, readList } from './listed.ts';
import { Table } from './table.tsx';

/** A delivery as `GET /v1/webhook/{id}/deliveries` lists it. */
interface Delivery {
  readonly id: string;
  readonly event: string;
  readonly status: 'pending' | 'delivered' | 'failed';
  readonly test: boolean;
  readonly attempts: number;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly nextAttemptAt: string | null;
  readonly createdAt: string;
  /** Every attempt, oldest first, with the start of the endpoint's answer. */
  readonly attemptLog: readonly { readonly response: string | null }[];
}

/** How much of an endpoint's answer the log shows. */
const ANSWER_SHOWN = 120;

/** The start of the endpoint's answer to the latest attempt, or a dash. */
function answerOf(delivery: Delivery): string {
  const response = delivery.attemptLog.at(-1)?.response ?? null;
  if (response === null) return '—';
  return response.length > ANSWER_SHOWN ? `${response.slice(0, ANSWER_SHOWN)}…` : response;
}

/** What a delivery's last attempt came to, in words. */
function outcome(delivery: Delivery): string {
  const answer =
    delivery.lastStatusCode !== null
      ? `answered ${delivery.lastStatusCode}`
      : delivery.lastError !== null
        ? delivery.lastError
        : null;
  if (delivery.status === 'delivered') return `Delivered (${answer ?? 'ok'})`;
  // Given up: the reason it stopped (the endpoint switched off, say) says more than the
  // status code of the attempt before.
  if (delivery.status === 'failed') return `Failed: ${delivery.lastError ?? answer ?? 'no answer'}`;
  if (delivery.attempts === 0) return 'Waiting to be sent';
  const retry =
    delivery.nextAttemptAt === null ? '' : `; next try ${formatTime(delivery.nextAttemptAt)}`;
  return `Not delivered: ${answer ?? 'no answer'}${retry}`;
}

/** The endpoint whose deliveries are shown. */
interface Endpoint {
  readonly id: string;
  readonly url: string;
  readonly isActive: boolean;
}

/** An endpoint's latest deliveries, read again on demand, each of which may be sent again. */
export function Deliveries(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
  readonly hook: Endpoint;
}) {
  const { config, ended, hook } = props;
  const [listed, setListed] = useState<Listed<Delivery>>({ kind: 'loading' });
  const base = `/v1/webhook/${encodeURIComponent(hook.id)}/deliveries`;
  const load = useCallback(() => {
    const read = call<{ deliveries: Delivery[] }>(config.apiBase, `${base}?limit=20`);
    readList(
      read.then((answer) => answer.deliveries),
      setListed,
      ended,
    );
  }, [config, ended, base]);
  useEffect(load, [load]);
  const { busy, problem, change } = useChange(load, ended);
  const again = (delivery: Delivery) =>
    change(() =>
      call(config.apiBase, `${base}/${encodeURIComponent(delivery.id)}/redeliver`, {
        method: 'POST',
      }),
    );

  return (
    <div class="deliveries">
      <div class="actions">
        <h3>Latest deliveries</h3>
        <button type="button" class="quiet" onClick={load}>
          Refresh
        </button>
      </div>
      <Problem problem={problem} />
      <ListStatus listed={listed} loading="Loading the deliveries…" empty="Nothing sent yet." />
      {listed.kind === 'listed' && listed.items.length > 0 && (
        <Table
          caption={`Deliveries to ${hook.url}`}
          columns={['Created', 'Event', 'Attempts', 'Outcome', 'Answer', 'Action']}
          rows={listed.items.map((delivery) => ({
            key: delivery.id,
            id: delivery.id,
            cells: [
              formatTime(delivery.createdAt),
              `${delivery.event}${delivery.test ? ' (test)' : ''}`,
              String(delivery.attempts),
              outcome(delivery),
              <code key="answer">{answerOf(delivery)}</code>,
              // An endpoint switched off is sent nothing, so nothing is offered to send again.
              delivery.status === 'delivered' || !hook.isActive ? (
                '—'
              ) : (
                <button
                  type="button"
                  class="quiet"
                  key="again"
                  disabled={busy}
                  onClick={() => void again(delivery)}
                >
                  Send again
                </button>
              ),
            ],
          }))}
        />
      )}
    </div>
  );
}
