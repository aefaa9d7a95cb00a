import { useEffect, useState } from 'preact/hooks';
import { call, messageOf } from './api.ts';
import { currencyName, type DashboardConfig } from './config.ts';
import { type DailyAmounts, DailyChart } from './daily-chart.tsx';
import { ExplorerLink } from './explorer-link.tsx';
import { formatTime } from './format.ts';
import type { Payment } from './payment.ts';
import { followLink, hrefOf } from './router.ts';
import { Table } from './table.tsx';

const PERIODS = [7, 30, 90] as const;
type Period = (typeof PERIODS)[number];

/** `GET /v2/dashboard/summary`, as far as Home shows it. */
interface Summary {
  readonly since: string;
  readonly currencies: readonly {
    readonly currency: string;
    readonly symbol: string;
    readonly network: string | null;
    readonly received: string;
    readonly receivedPayments: number;
    readonly paidOut: string;
    readonly paidOutPayments: number;
  }[];
  readonly daily: readonly (DailyAmounts & { readonly currency: string })[];
  readonly linksAwaitingPayment: { readonly count: number; readonly more: boolean };
  readonly failingEndpoints: readonly {
    readonly id: string;
    readonly url: string;
    readonly failing: number;
    readonly lastError: string | null;
  }[];
}

type Read =
  | { readonly kind: 'loading' }
  | { readonly kind: 'read'; readonly summary: Summary; readonly latest: readonly Payment[] }
  | { readonly kind: 'failed'; readonly message: string };

const LATEST = 5;

/**
 * The account at a glance over the last 7, 30 or 90 days: what it received and paid out per
 * token (a chart of each day and the totals), its latest payments, the links awaiting payment
 * and the webhook endpoints that are failing.
 */
export function Home(props: {
  readonly config: DashboardConfig;
  /** Whether an error ended the session (the app then shows the sign-in page). */
  readonly ended: (error: unknown) => boolean;
}) {
  const { config, ended } = props;
  const [period, setPeriod] = useState<Period>(30);
  const [read, setRead] = useState<Read>({ kind: 'loading' });
  const [charted, setCharted] = useState('');

  useEffect(() => {
    let current = true;
    setRead({ kind: 'loading' });
    (async () => {
      const summary = await call<Summary>(config.apiBase, `/v2/dashboard/summary?days=${period}`);
      const from = encodeURIComponent(`${summary.since}T00:00:00Z`);
      const page = await call<{ payments: Payment[] }>(
        config.apiBase,
        `/v2/payments?fromDate=${from}&limit=${LATEST}`,
      );
      return { summary, latest: page.payments };
    })().then(
      (found) => {
        if (current) setRead({ kind: 'read', ...found });
      },
      (error: unknown) => {
        if (current && !ended(error)) setRead({ kind: 'failed', message: messageOf(error) });
      },
    );
    return () => {
      current = false;
    };
  }, [config, ended, period]);

  const links = `${hrefOf(config.basePath, 'links')}?status=pending`;
  const webhooks = hrefOf(config.basePath, 'webhooks');
  return (
    <main class="card" data-screen="home">
      <h1>Home</h1>
      <fieldset class="actions periods">
        <legend class="visually-hidden">Period</legend>
        {PERIODS.map((days) => (
          <button
            key={days}
            type="button"
            class={days === period ? '' : 'quiet'}
            aria-pressed={days === period}
            onClick={() => setPeriod(days)}
          >
            {days} days
          </button>
        ))}
      </fieldset>
      {read.kind === 'loading' && <p class="notice">Loading…</p>}
      {read.kind === 'failed' && (
        <p class="problem" role="alert">
          {read.message}
        </p>
      )}
      {read.kind === 'read' && (
        <HomeFigures
          config={config}
          period={period}
          summary={read.summary}
          latest={read.latest}
          charted={charted}
          chart={setCharted}
          links={links}
          webhooks={webhooks}
        />
      )}
    </main>
  );
}

function HomeFigures(props: {
  readonly config: DashboardConfig;
  readonly period: Period;
  readonly summary: Summary;
  readonly latest: readonly Payment[];
  readonly charted: string;
  readonly chart: (currency: string) => void;
  readonly links: string;
  readonly webhooks: string;
}) {
  const { summary, period } = props;
  const count = summary.currencies.reduce(
    (sum, c) => sum + c.receivedPayments + c.paidOutPayments,
    0,
  );
  const shown =
    summary.currencies.find((c) => c.currency === props.charted) ?? summary.currencies[0];
  const awaiting = summary.linksAwaitingPayment;
  return (
    <>
      <section aria-labelledby="payments-period">
        <h2 id="payments-period">Payments in and out in the last {period} days</h2>
        <p class="figure" data-field="payments-count">
          {count.toLocaleString('en-US')}
        </p>
        {summary.currencies.length > 0 && (
          <Table
            caption={`Received and paid out in the last ${period} days`}
            columns={['Currency', 'Received', 'Paid out']}
            rows={summary.currencies.map((c) => ({
              key: c.currency,
              id: c.currency,
              cells: [
                currencyName(props.config, c.currency),
                `${c.received} ${c.symbol} (${c.receivedPayments})`,
                `${c.paidOut} ${c.symbol} (${c.paidOutPayments})`,
              ],
            }))}
          />
        )}
        {shown !== undefined && (
          <>
            {summary.currencies.length > 1 && (
              <label>
                Chart of
                <select
                  value={shown.currency}
                  onChange={(event) => props.chart(event.currentTarget.value)}
                >
                  {summary.currencies.map((c) => (
                    <option key={c.currency} value={c.currency}>
                      {currencyName(props.config, c.currency)}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <DailyChart
              since={summary.since}
              days={period}
              symbol={shown.symbol}
              daily={summary.daily.filter((d) => d.currency === shown.currency)}
            />
          </>
        )}
      </section>
      <section aria-labelledby="awaiting">
        <h2 id="awaiting">Links awaiting payment</h2>
        <p>
          <a
            href={props.links}
            onClick={(event) => followLink(event, props.links)}
            data-field="links-awaiting"
          >
            {awaiting.count.toLocaleString('en-US')}
            {awaiting.more ? '+' : ''} {awaiting.count === 1 ? 'link' : 'links'}
          </a>
        </p>
      </section>
      <section aria-labelledby="failing">
        <h2 id="failing">Webhook endpoints failing</h2>
        {summary.failingEndpoints.length === 0 ? (
          <p class="notice" data-field="endpoints-ok">
            None: every endpoint answers.
          </p>
        ) : (
          <ul data-field="endpoints-failing">
            {summary.failingEndpoints.map((endpoint) => (
              <li key={endpoint.id}>
                <a href={props.webhooks} onClick={(event) => followLink(event, props.webhooks)}>
                  <code>{endpoint.url}</code>
                </a>
                : {endpoint.failing} of its latest deliveries not delivered
                {endpoint.lastError === null ? '' : ` (${endpoint.lastError})`}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="latest">
        <h2 id="latest">Latest payments, in and out</h2>
        {props.latest.length === 0 ? (
          <p class="notice">No payments in this period.</p>
        ) : (
          <Table
            caption="Latest payments"
            columns={['Paid', 'Amount', 'Reference', 'Transaction']}
            rows={props.latest.map((payment) => ({
              key: payment.id,
              id: payment.id,
              cells: [
                formatTime(payment.timestamp),
                `${payment.amount} ${payment.currency}`,
                payment.request.reference ?? '—',
                <ExplorerLink
                  key="tx"
                  config={props.config}
                  network={payment.destinationNetwork}
                  txHash={payment.destinationTxHash ?? payment.sourceTxHash}
                />,
              ],
            }))}
          />
        )}
      </section>
    </>
  );
}
