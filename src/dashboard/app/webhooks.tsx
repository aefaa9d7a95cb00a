import { useCallback, useEffect, useState } from 'preact/hooks';
import { call, messageOf } from './api.ts';
import type { DashboardConfig } from './config.ts';
import { formatTime } from './format.ts';
import { ListStatus } from './list-status.tsx';
import { type Listed, readList } from './listed.ts';
import { ShownOnce } from './shown-once.tsx';
import { Table } from './table.tsx';

/** An endpoint as `GET /v1/webhook` lists it: its secret masked. */
interface Webhook {
  readonly id: string;
  readonly url: string;
  readonly secret: string;
  readonly isActive: boolean;
  readonly clientId: string | null;
  readonly createdAt: string;
}

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
}

/** The event a test delivery carries. */
const TEST_EVENT = 'payment.confirmed';

/** What a delivery's last attempt came to, in words. */
function outcome(delivery: Delivery): string {
  const answer =
    delivery.lastStatusCode !== null
      ? `answered ${delivery.lastStatusCode}`
      : delivery.lastError !== null
        ? delivery.lastError
        : null;
  if (delivery.status === 'delivered') return `Delivered (${answer ?? 'ok'})`;
  if (delivery.status === 'failed') return `Failed: ${answer ?? 'no answer'}`;
  if (delivery.attempts === 0) return 'Waiting to be sent';
  const retry =
    delivery.nextAttemptAt === null ? '' : `; next try ${formatTime(delivery.nextAttemptAt)}`;
  return `Not delivered: ${answer ?? 'no answer'}${retry}`;
}

/**
 * The account's webhook endpoints: register one (its signing secret shown once), switch it on
 * or off, remove it, send it a test event, and read its deliveries: each one's outcome, and
 * send one again.
 */
export function Webhooks(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
}) {
  const { config, ended } = props;
  const [hooks, setHooks] = useState<Listed<Webhook>>({ kind: 'loading' });
  const [secret, setSecret] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState<string | null>(null);

  const load = useCallback(() => {
    readList(call<Webhook[]>(config.apiBase, '/v1/webhook'), setHooks, ended);
  }, [config, ended]);
  useEffect(load, [load]);

  const change = async (run: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setProblem(null);
    try {
      await run();
      load();
      return true;
    } catch (error) {
      if (!ended(error)) setProblem(messageOf(error));
      return false;
    } finally {
      setBusy(false);
    }
  };
  const register = async (form: HTMLFormElement) => {
    const url = String(new FormData(form).get('url') ?? '').trim();
    await change(async () => {
      const made = await call<{ secret: string }>(config.apiBase, '/v1/webhook', {
        method: 'POST',
        body: { url },
      });
      setSecret(made.secret);
      form.reset();
    });
  };
  const path = (hook: Webhook) => `/v1/webhook/${encodeURIComponent(hook.id)}`;

  return (
    <main class="card" data-screen="webhooks">
      <h1>Webhooks</h1>
      <p class="notice">
        payreq sends each event to your endpoints, signed with the endpoint's secret, and tries
        again when one does not answer 2xx.
      </p>
      {problem !== null && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {secret !== null ? (
        <ShownOnce
          id="new-secret"
          title="The endpoint's signing secret"
          text="Copy it now: it is shown once. Your endpoint checks each delivery's signature with it."
          label="Signing secret"
          value={secret}
          onDone={() => setSecret(null)}
        />
      ) : (
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            void register(event.currentTarget);
          }}
        >
          <label>
            Endpoint URL
            <input name="url" type="url" required placeholder="https://shop.example/payreq" />
          </label>
          <button type="submit" disabled={busy}>
            Register endpoint
          </button>
        </form>
      )}
      <ListStatus listed={hooks} loading="Loading the endpoints…" empty="No endpoints yet." />
      {hooks.kind === 'listed' &&
        hooks.items.map((hook) => (
          <section class="endpoint" key={hook.id} data-webhook={hook.id} aria-label={hook.url}>
            <h2>
              <code>{hook.url}</code>
            </h2>
            <p class="notice">
              {hook.isActive ? 'On' : 'Off'} · secret <code>{hook.secret}</code> ·{' '}
              {hook.clientId === null
                ? 'every request of the account'
                : `client ID ${hook.clientId}`}{' '}
              · since {formatTime(hook.createdAt)}
            </p>
            <div class="actions">
              <button
                type="button"
                class="quiet"
                disabled={busy}
                onClick={() =>
                  void change(() =>
                    call(config.apiBase, '/v1/webhook/test', {
                      method: 'POST',
                      body: { eventType: TEST_EVENT },
                    }),
                  ).then((sent) => sent && setOpen(hook.id))
                }
              >
                Send a test event
              </button>
              <button
                type="button"
                class="quiet"
                onClick={() => setOpen(open === hook.id ? null : hook.id)}
              >
                {open === hook.id ? 'Hide deliveries' : 'Deliveries'}
              </button>
              <button
                type="button"
                class="quiet"
                disabled={busy}
                onClick={() =>
                  void change(() =>
                    call(config.apiBase, path(hook), {
                      method: 'PUT',
                      body: { active: !hook.isActive },
                    }),
                  )
                }
              >
                {hook.isActive ? 'Switch off' : 'Switch on'}
              </button>
              <button
                type="button"
                class="quiet"
                disabled={busy}
                onClick={() =>
                  void change(() => call(config.apiBase, path(hook), { method: 'DELETE' }))
                }
              >
                Remove
              </button>
            </div>
            {open === hook.id && <Deliveries config={config} ended={ended} hook={hook} />}
          </section>
        ))}
    </main>
  );
}

/** An endpoint's latest deliveries, read again on demand, each of which may be sent again. */
function Deliveries(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
  readonly hook: Webhook;
}) {
  const { config, ended, hook } = props;
  const [listed, setListed] = useState<Listed<Delivery>>({ kind: 'loading' });
  const [problem, setProblem] = useState<string | null>(null);
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
  const again = (delivery: Delivery) => {
    setProblem(null);
    call(config.apiBase, `${base}/${encodeURIComponent(delivery.id)}/redeliver`, {
      method: 'POST',
    }).then(load, (error: unknown) => {
      if (!ended(error)) setProblem(messageOf(error));
    });
  };

  return (
    <div class="deliveries">
      <div class="actions">
        <h3>Latest deliveries</h3>
        <button type="button" class="quiet" onClick={load}>
          Refresh
        </button>
      </div>
      {problem !== null && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      <ListStatus listed={listed} loading="Loading the deliveries…" empty="Nothing sent yet." />
      {listed.kind === 'listed' && listed.items.length > 0 && (
        <Table
          caption={`Deliveries to ${hook.url}`}
          columns={['Created', 'Event', 'Attempts', 'Outcome', '']}
          rows={listed.items.map((delivery) => ({
            key: delivery.id,
            id: delivery.id,
            cells: [
              formatTime(delivery.createdAt),
              `${delivery.event}${delivery.test ? ' (test)' : ''}`,
              String(delivery.attempts),
              outcome(delivery),
              delivery.status === 'delivered' ? (
                ''
              ) : (
                <button type="button" class="quiet" key="again" onClick={() => again(delivery)}>
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
