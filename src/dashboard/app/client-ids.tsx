import { useCallback, useEffect, useState } from 'preact/hooks';
import { call } from './api.ts';
import { Problem, useChange } from './change.tsx';
import type { DashboardConfig } from './config.ts';
import { Confirmable } from './confirmable.tsx';
import { formatTime } from './format.ts';
import { ListStatus } from './list-status.tsx';
import { type Listed, readList } from './listed.ts';
import { Table } from './table.tsx';

/** A client ID as `GET /v1/client-ids` lists it. */
interface ClientId {
  readonly id: string;
  readonly clientId: string;
  readonly label: string;
  readonly allowedDomains: readonly string[];
  readonly status: 'active' | 'inactive' | 'revoked';
  readonly feePercentage: string | null;
  readonly feeAddress: string | null;
  readonly lastUsedAt: string | null;
  readonly orchestrator: { readonly id: string; readonly name: string } | null;
}

/** What a row asks the merchant to confirm before it is done. */
type Pending = { readonly id: string; readonly action: 'revoke' | 'unlink' };

const CONFIRM: Readonly<Record<Pending['action'], { text: string; button: string }>> = {
  revoke: { text: 'Browsers and apps using it stop working.', button: 'Revoke now' },
  unlink: {
    text: 'The platform can no longer act for this client ID, ever.',
    button: 'Unlink now',
  },
};

/** The lines of a text area, trimmed, without the empty ones. */
function lines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/**
 * The account's client IDs (what browsers and apps send as `x-client-id`): create one with the
 * origins it works from and a platform fee, see which platform is linked to each and unlink
 * it, revoke one.
 */
export function ClientIds(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
}) {
  const { config, ended } = props;
  const [listed, setListed] = useState<Listed<ClientId>>({ kind: 'loading' });
  const [pending, setPending] = useState<Pending | null>(null);

  const load = useCallback(() => {
    readList(call<ClientId[]>(config.apiBase, '/v1/client-ids'), setListed, ended);
  }, [config, ended]);
  useEffect(load, [load]);

  // After a change, the list again, with nothing left to confirm.
  const { busy, problem, change } = useChange(() => {
    setPending(null);
    load();
  }, ended);
  const create = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const fee = String(data.get('feePercentage') ?? '').trim();
    const feeAddress = String(data.get('feeAddress') ?? '').trim();
    const body = {
      label: String(data.get('label') ?? '').trim(),
      allowedDomains: lines(String(data.get('allowedDomains') ?? '')),
      ...(fee !== '' && { feePercentage: fee }),
      ...(feeAddress !== '' && { feeAddress }),
    };
    const made = await change(() =>
      call<unknown>(config.apiBase, '/v1/client-ids', { method: 'POST', body }),
    );
    if (made) form.reset();
  };
  const act = ({ id, action }: Pending) => {
    const path = `/v1/client-ids/${encodeURIComponent(id)}${action === 'unlink' ? '/orchestrator' : ''}`;
    void change(() => call<unknown>(config.apiBase, path, { method: 'DELETE' }));
  };

  const confirmation = (clientId: ClientId, action: Pending['action'], label: string) => (
    <Confirmable
      key={action}
      asking={pending?.id === clientId.id && pending.action === action}
      label={label}
      warning={CONFIRM[action].text}
      confirm={CONFIRM[action].button}
      busy={busy}
      onAsk={() => setPending({ id: clientId.id, action })}
      onConfirm={() => act({ id: clientId.id, action })}
      onKeep={() => setPending(null)}
    />
  );

  return (
    <main class="card" data-screen="client-ids">
      <h1>Client IDs</h1>
      <p class="notice">
        Browsers and apps send one as <code>x-client-id</code>. It is not secret: the origins it
        allows are what protects it.
      </p>
      <Problem problem={problem} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void create(event.currentTarget);
        }}
      >
        <label>
          Label
          <input name="label" required maxLength={100} placeholder="Web shop" />
        </label>
        <label>
          Allowed origins, one per line (none: a backend client ID)
          <textarea name="allowedDomains" rows={2} placeholder="https://shop.example" />
        </label>
        <div class="pair">
          <label>
            Platform fee, percent (optional)
            <input name="feePercentage" inputMode="decimal" placeholder="1.5" />
          </label>
          <label>
            Fee address
            <input name="feeAddress" placeholder="0x…" />
          </label>
        </div>
        <button type="submit" disabled={busy}>
          Create client ID
        </button>
      </form>
      <ListStatus listed={listed} loading="Loading the client IDs…" empty="No client IDs yet." />
      {listed.kind === 'listed' && listed.items.length > 0 && (
        <Table
          caption="Client IDs"
          columns={['Label', 'Client ID', 'Origins', 'Fee', 'Platform', 'Last used', 'Status']}
          rows={listed.items.map((clientId) => ({
            key: clientId.id,
            id: clientId.clientId,
            cells: [
              clientId.label,
              <code key="id">{clientId.clientId}</code>,
              clientId.allowedDomains.length === 0
                ? 'Any (backend)'
                : clientId.allowedDomains.join(', '),
              clientId.feePercentage === null ? (
                'None'
              ) : (
                <span key="fee">
                  {clientId.feePercentage}% to <code>{clientId.feeAddress ?? '—'}</code>
                </span>
              ),
              clientId.orchestrator === null ? (
                'None'
              ) : (
                <span class="confirm" key="platform">
                  {clientId.orchestrator.name}
                  {clientId.status !== 'revoked' && confirmation(clientId, 'unlink', 'Unlink')}
                </span>
              ),
              clientId.lastUsedAt === null ? 'Never' : formatTime(clientId.lastUsedAt),
              clientId.status === 'revoked'
                ? 'Revoked'
                : confirmation(clientId, 'revoke', 'Revoke'),
            ],
          }))}
        />
      )}
    </main>
  );
}
