import { useCallback, useEffect, useState } from 'preact/hooks';
import { messageOf } from './api.ts';
import { currencyName, type DashboardConfig } from './config.ts';
import { ExplorerLink } from './explorer-link.tsx';
import { focusOnMount } from './focus.ts';
import { formatTime } from './format.ts';
import { type Activity, type Delivery, readActivity } from './link-activity.ts';
import { STATUS_WORDS } from './links.tsx';
import { Table } from './table.tsx';

/** How often a link awaiting payment is read again while its page is open. */
const AWAITING_REFRESH_MS = 5_000;

type State =
  | { readonly kind: 'loading' }
  | { readonly kind: 'read'; readonly activity: Activity }
  | { readonly kind: 'failed'; readonly message: string };

/** What a delivery came to, in words. */
function deliveryOutcome(delivery: Delivery): string {
  const answer =
    delivery.lastStatusCode !== null ? `answered ${delivery.lastStatusCode}` : delivery.lastError;
  if (delivery.status === 'delivered') return 'Delivered';
  if (delivery.status === 'failed') return `Failed: ${delivery.lastError ?? answer ?? 'no answer'}`;
  return delivery.attempts === 0 ? 'Waiting to be sent' : `Retrying: ${answer ?? 'no answer'}`;
}

/**
 * One link: its status and address, what it asks and of whom, the payments that paid it (each
 * with its transaction on the explorer), its fee legs, and the webhooks its payments caused.
 */
export function LinkPage(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
  readonly token: string;
}) {
  const { config, ended, token } = props;
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [refreshing, setRefreshing] = useState(false);
  const load = useCallback(() => {
    setRefreshing(true);
    readActivity(config.apiBase, token)
      .then(
        (activity) => setState({ kind: 'read', activity }),
        (error: unknown) => {
          if (!ended(error)) setState({ kind: 'failed', message: messageOf(error) });
        },
      )
      .finally(() => setRefreshing(false));
  }, [config, ended, token]);
  useEffect(load, [load]);
  // While it awaits payment the page reads it again now and then, so a payment shows up.
  const pending = state.kind === 'read' && state.activity.link.status === 'pending';
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(load, AWAITING_REFRESH_MS);
    return () => clearInterval(timer);
  }, [pending, load]);

  if (state.kind === 'loading') {
    return (
      <main class="card" data-screen="link">
        <h1>Link</h1>
        <p class="notice">Loading the link…</p>
      </main>
    );
  }
  if (state.kind === 'failed') {
    return (
      <main class="card" data-screen="link">
        <h1>Link</h1>
        <p class="problem" role="alert">
          {state.message}
        </p>
      </main>
    );
  }
  const { link, shown, payments, deliveries } = state.activity;
  return (
    <main class="card" data-screen="link">
      <h1 tabIndex={-1} ref={focusOnMount}>
        {link.payout ? 'Payout link' : 'Link'} {link.reference ?? ''}
      </h1>
      <p class="figure" data-field="link-status">
        {STATUS_WORDS[link.status] ?? link.status}
      </p>
      <dl class="facts">
        <dt>Pay page</dt>
        <dd>
          <a href={link.securePaymentUrl} target="_blank" rel="noreferrer" data-field="pay-url">
            {link.securePaymentUrl}
          </a>
        </dd>
        <dt>Made</dt>
        <dd>{formatTime(link.createdAt)}</dd>
        <dt>{link.completedAt === null ? 'Expires' : 'Paid'}</dt>
        <dd>{formatTime(link.completedAt ?? link.expiresAt)}</dd>
        <dt>Network</dt>
        <dd>{config.networks.find((n) => n.id === link.network)?.name ?? link.network}</dd>
      </dl>
      <div class="actions">
        <button type="button" class="quiet" onClick={load} disabled={refreshing}>
          {refreshing ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <section aria-labelledby="link-requests">
        <h2 id="link-requests">What it asks</h2>
        {shown === null || shown.asked.length === 0 ? (
          <p class="notice">
            {link.requestIds.length} {link.requestIds.length === 1 ? 'request' : 'requests'}
          </p>
        ) : (
          <Table
            caption="Requests of the link"
            columns={['Amount', 'Payee']}
            rows={shown.asked.map((asked, i) => ({
              key: String(i),
              cells: [
                `${asked.amount} ${currencyName(config, asked.currency)}`,
                <code key="payee">{asked.payee}</code>,
              ],
            }))}
          />
        )}
      </section>
      <section aria-labelledby="link-payments">
        <h2 id="link-payments">Payments</h2>
        {payments.length === 0 ? (
          <p class="notice">No payment yet.</p>
        ) : (
          <Table
            caption="Payments of the link"
            columns={['Paid', 'Amount', 'Payer', 'Transaction']}
            rows={payments.map((payment) => ({
              key: payment.id,
              id: payment.id,
              cells: [
                formatTime(payment.timestamp),
                `${payment.amount} ${payment.currency}`,
                payment.payerAddress === null ? (
                  '—'
                ) : (
                  <code key="payer">{payment.payerAddress}</code>
                ),
                <ExplorerLink
                  key="tx"
                  config={config}
                  network={payment.destinationNetwork}
                  txHash={payment.destinationTxHash ?? payment.sourceTxHash}
                />,
              ],
            }))}
          />
        )}
      </section>
      {shown !== null && shown.feeLegs.length > 0 && (
        <section aria-labelledby="link-fees">
          <h2 id="link-fees">Fees</h2>
          <Table
            caption="Fee legs of the link"
            columns={['Fee', 'Amount', 'Borne by', 'To', 'Status']}
            rows={shown.feeLegs.map((leg, i) => ({
              key: String(i),
              cells: [
                leg.label,
                `${leg.amount} ${leg.currency}`,
                leg.feeBearer,
                <code key="to">{leg.recipient}</code>,
                leg.status === 'paid' ? 'Paid' : 'Outstanding',
              ],
            }))}
          />
        </section>
      )}
      <section aria-labelledby="link-webhooks">
        <h2 id="link-webhooks">Webhooks sent</h2>
        {deliveries.length === 0 ? (
          <p class="notice">None yet.</p>
        ) : (
          <Table
            caption="Webhooks the link's payments caused"
            columns={['Made', 'Event', 'Endpoint', 'Outcome']}
            rows={deliveries.map((delivery) => ({
              key: delivery.id,
              id: delivery.id,
              cells: [
                formatTime(delivery.createdAt),
                delivery.event,
                <code key="url">{delivery.url}</code>,
                deliveryOutcome(delivery),
              ],
            }))}
          />
        )}
      </section>
    </main>
  );
}
