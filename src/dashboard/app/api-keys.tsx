import { useCallback, useEffect, useState } from 'preact/hooks';
import { call, messageOf } from './api.ts';
import type { DashboardConfig } from './config.ts';
import { focusOnMount } from './focus.ts';
import { formatTime } from './format.ts';
import { Table } from './table.tsx';

/** An API key as `GET /v1/api-keys` lists it: never the key itself. */
interface ApiKey {
  readonly id: string;
  readonly prefix: string;
  readonly label: string | null;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

/** A key just made: the key itself, shown this once and kept only while it is on screen. */
interface Created {
  readonly apiKey: string;
  readonly label: string | null;
}

type Keys =
  | { readonly kind: 'loading' }
  | { readonly kind: 'listed'; readonly keys: readonly ApiKey[] }
  | { readonly kind: 'failed'; readonly message: string };

/** The account's API keys: create one (shown once), see when each was last used, revoke one. */
export function ApiKeys(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
}) {
  const { config, ended } = props;
  const [keys, setKeys] = useState<Keys>({ kind: 'loading' });
  const [created, setCreated] = useState<Created | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);

  const failed = useCallback(
    (error: unknown) => {
      if (!ended(error)) setProblem(messageOf(error));
    },
    [ended],
  );
  const load = useCallback(() => {
    call<ApiKey[]>(config.apiBase, '/v1/api-keys').then(
      (listed) => setKeys({ kind: 'listed', keys: listed }),
      (error: unknown) => {
        if (!ended(error)) setKeys({ kind: 'failed', message: messageOf(error) });
      },
    );
  }, [config, ended]);
  useEffect(load, [load]);

  const create = async (form: FormData) => {
    const label = String(form.get('label') ?? '').trim();
    setBusy(true);
    setProblem(null);
    try {
      const made = await call<Created>(config.apiBase, '/v1/api-keys', {
        method: 'POST',
        body: label === '' ? {} : { label },
      });
      setCreated({ apiKey: made.apiKey, label: made.label });
      load();
    } catch (error) {
      failed(error);
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (id: string) => {
    setBusy(true);
    setProblem(null);
    try {
      await call<unknown>(config.apiBase, `/v1/api-keys/${encodeURIComponent(id)}`, {
        method: 'DELETE',
      });
      setConfirming(null);
      load();
    } catch (error) {
      failed(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="card" data-screen="api-keys">
      <h1>API keys</h1>
      <p class="notice">
        Your servers send one as <code>x-api-key</code>. Keep keys secret: anyone holding one acts
        as your account.
      </p>
      {problem !== null && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {created !== null ? (
        <section class="secret" aria-labelledby="new-key" data-field="new-key" aria-live="polite">
          <h2 id="new-key">Your new key{created.label === null ? '' : ` “${created.label}”`}</h2>
          <p>Copy it now: it is shown once, and payreq keeps no copy it could show again.</p>
          <input
            aria-label="New API key"
            ref={focusOnMount}
            readOnly
            value={created.apiKey}
            onFocus={(event) => event.currentTarget.select()}
          />
          <button type="button" onClick={() => setCreated(null)}>
            I have stored it
          </button>
        </section>
      ) : (
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            void create(new FormData(event.currentTarget));
          }}
        >
          <label>
            Label (optional)
            <input name="label" maxLength={100} placeholder="Shop backend" />
          </label>
          <button type="submit" disabled={busy}>
            Create API key
          </button>
        </form>
      )}
      {keys.kind === 'loading' && <p class="notice">Loading the keys…</p>}
      {keys.kind === 'failed' && (
        <p class="problem" role="alert">
          {keys.message}
        </p>
      )}
      {keys.kind === 'listed' && keys.keys.length === 0 && <p class="notice">No API keys yet.</p>}
      {keys.kind === 'listed' && keys.keys.length > 0 && (
        <Table
          caption="API keys"
          columns={['Label', 'Key', 'Created', 'Last used', 'Status']}
          rows={keys.keys.map((key) => ({
            key: key.id,
            id: key.prefix,
            cells: [
              key.label ?? '—',
              <code key="prefix">{key.prefix}…</code>,
              formatTime(key.createdAt),
              key.lastUsedAt === null ? 'Never' : formatTime(key.lastUsedAt),
              key.revokedAt !== null ? (
                `Revoked ${formatTime(key.revokedAt)}`
              ) : confirming === key.id ? (
                <span class="confirm" key="confirm">
                  Apps using it stop working.{' '}
                  <button
                    type="button"
                    ref={focusOnMount}
                    disabled={busy}
                    onClick={() => void revoke(key.id)}
                  >
                    Revoke now
                  </button>{' '}
                  <button type="button" class="quiet" onClick={() => setConfirming(null)}>
                    Keep
                  </button>
                </span>
              ) : (
                <button
                  type="button"
                  class="quiet"
                  key="revoke"
                  onClick={() => setConfirming(key.id)}
                >
                  Revoke
                </button>
              ),
            ],
          }))}
        />
      )}
    </main>
  );
}
