import { useCallback, useEffect, useState } from 'preact/hooks';
import { call, messageOf } from './api.ts';
import type { DashboardConfig } from './config.ts';
import { Confirmable } from './confirmable.tsx';
import { formatTime } from './format.ts';
import { ListStatus } from './list-status.tsx';
import { type Listed, readList } from './listed.ts';
import { ShownOnce } from './shown-once.tsx';
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

/** The account's API keys: create one (shown once), see when each was last used, revoke one. */
export function ApiKeys(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
}) {
  const { config, ended } = props;
  const [keys, setKeys] = useState<Listed<ApiKey>>({ kind: 'loading' });
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
    readList(call<ApiKey[]>(config.apiBase, '/v1/api-keys'), setKeys, ended);
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
        <ShownOnce
          id="new-key"
          title={`Your new key${created.label === null ? '' : ` “${created.label}”`}`}
          text="Copy it now: it is shown once, and payreq keeps no copy it could show again."
          label="New API key"
          value={created.apiKey}
          onDone={() => setCreated(null)}
        />
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
      <ListStatus listed={keys} loading="Loading the keys…" empty="No API keys yet." />
      {keys.kind === 'listed' && keys.items.length > 0 && (
        <Table
          caption="API keys"
          columns={['Label', 'Key', 'Created', 'Last used', 'Status']}
          rows={keys.items.map((key) => ({
            key: key.id,
            id: key.prefix,
            cells: [
              key.label ?? '—',
              <code key="prefix">{key.prefix}…</code>,
              formatTime(key.createdAt),
              key.lastUsedAt === null ? 'Never' : formatTime(key.lastUsedAt),
              key.revokedAt !== null ? (
                `Revoked ${formatTime(key.revokedAt)}`
              ) : (
                <Confirmable
                  key="revoke"
                  asking={confirming === key.id}
                  label="Revoke"
                  warning="Apps using it stop working."
                  confirm="Revoke now"
                  busy={busy}
                  onAsk={() => setConfirming(key.id)}
                  onConfirm={() => void revoke(key.id)}
                  onKeep={() => setConfirming(null)}
                />
              ),
            ],
          }))}
        />
      )}
    </main>
  );
}
