import { useCallback, useEffect, useState } from 'preact/hooks';
import { call } from './api.ts';
import { Problem, useChange } from './change.tsx';
import type { DashboardConfig } from './config.ts';
import { Confirmable } from './confirmable.tsx';
import { Deliveries } from './deliveries.tsx';
import { formatTime } from './format.ts';
import { ListStatus } from './list-status.tsx';
import { type Listed, readList } from './listed.ts';
import { ShownOnce } from './shown-once.tsx';

/** An endpoint as `GET /v1/webhook` lists it: its secret masked. */
interface Webhook {
  readonly id: string;
  readonly url: string;
  readonly secret: string;
  readonly isActive: boolean;
  readonly clientId: string | null;
  readonly createdAt: string;
}

/** The event a test delivery carries. */
const TEST_EVENT = 'payment.confirmed';

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
  const [open, setOpen] = useState<string | null>(null);
  /** The endpoint whose removal is being confirmed. */
  const [removing, setRemoving] = useState<string | null>(null);

  const load = useCallback(() => {
    readList(call<Webhook[]>(config.apiBase, '/v1/webhook'), setHooks, ended);
  }, [config, ended]);
  useEffect(load, [load]);

  const { busy, problem, change } = useChange(load, ended);
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
  // A test event goes to every endpoint that is on (`POST /v1/webhook/test`): how many it
  // reached is said, and an open delivery log reads again.
  const [sent, setSent] = useState<number | null>(null);
  const [tests, setTests] = useState(0);
  const test = () =>
    change(async () => {
      setSent(null);
      const answer = await call<{ sent: number }>(config.apiBase, '/v1/webhook/test', {
        method: 'POST',
        body: { eventType: TEST_EVENT },
      });
      setSent(answer.sent);
      setTests((count) => count + 1);
    });
  const path = (hook: Webhook) => `/v1/webhook/${encodeURIComponent(hook.id)}`;

  return (
    <main class="card" data-screen="webhooks">
      <h1>Webhooks</h1>
      <p class="notice">
        payreq sends each event to your endpoints, signed with the endpoint's secret, and tries
        again when one does not answer 2xx.
      </p>
      <Problem problem={problem} />
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
      {hooks.kind === 'listed' && hooks.items.length > 0 && (
        <div class="actions">
          <button type="button" class="quiet" disabled={busy} onClick={() => void test()}>
            Send a test event to every endpoint that is on
          </button>
          {sent !== null && (
            <p class="notice" role="status" data-field="test-sent">
              {sent === 1 ? 'Sent to 1 endpoint.' : `Sent to ${sent} endpoints.`}
            </p>
          )}
        </div>
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
                aria-expanded={open === hook.id}
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
              <Confirmable
                asking={removing === hook.id}
                label="Remove"
                warning="Nothing more is sent to it."
                confirm="Remove now"
                busy={busy}
                onAsk={() => setRemoving(hook.id)}
                onConfirm={() =>
                  void change(() => call(config.apiBase, path(hook), { method: 'DELETE' }))
                }
                onKeep={() => setRemoving(null)}
              />
            </div>
            {open === hook.id && (
              // Read again after every test event: a new key mounts the log afresh.
              <Deliveries key={tests} config={config} ended={ended} hook={hook} />
            )}
          </section>
        ))}
    </main>
  );
}
