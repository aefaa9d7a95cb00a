import type { DashboardConfig } from './config.ts';
import { ExplorerLink } from './explorer-link.tsx';
import { formatTime } from './format.ts';
import { Pager, usePaged } from './paging.tsx';
import type { Payment } from './payment.ts';
import { Table } from './table.tsx';

interface SearchPage {
  readonly payments: readonly Payment[];
  readonly pagination: {
    readonly total: number;
    readonly totalExact: boolean;
    readonly nextCursor: string | null;
  };
}

const PAGE_SIZE = 25;
const DAY_MS = 24 * 60 * 60_000;
const TYPES = ['direct', 'conversion', 'crosschain'] as const;

/** A day (yyyy-mm-dd, UTC) `days` before today. */
function dayBefore(days: number): string {
  return new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The search's query from the form: each filled field as `GET /v2/payments` names it, the
 * dates as whole UTC days (from its first second, to its last).
 */
function filtersOf(form: FormData): URLSearchParams {
  const query = new URLSearchParams();
  const text = (name: string) => String(form.get(name) ?? '').trim();
  const from = text('from');
  const to = text('to');
  if (from !== '') query.set('fromDate', `${from}T00:00:00Z`);
  if (to !== '') query.set('toDate', `${to}T23:59:59.999Z`);
  for (const name of ['reference', 'walletAddress', 'requestId', 'txHash', 'type', 'currency']) {
    const value = text(name);
    if (value !== '') query.set(name === 'currency' ? 'invoiceCurrency' : name, value);
  }
  return query;
}

/** The account's payments, found by the search's filters, page by page, and as CSV. */
export function Payments(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
}) {
  const { config, ended } = props;
  const search = usePaged<SearchPage>({
    apiBase: config.apiBase,
    path: '/v2/payments',
    initial: () => new URLSearchParams({ fromDate: `${dayBefore(30)}T00:00:00Z` }),
    pageSize: PAGE_SIZE,
    nextCursorOf: (page) => page.pagination.nextCursor,
    ended,
  });
  const { results } = search;
  const exportHref = `${config.apiBase}/v2/dashboard/payments/export?${search.filters}`;
  return (
    <main class="card" data-screen="payments">
      <h1>Payments</h1>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          search.search(filtersOf(new FormData(event.currentTarget)));
        }}
      >
        <div class="pair">
          <label>
            From (UTC)
            <input name="from" type="date" defaultValue={dayBefore(30)} />
          </label>
          <label>
            To (UTC)
            <input name="to" type="date" />
          </label>
        </div>
        <div class="pair">
          <label>
            Reference
            <input name="reference" placeholder="order-1042" />
          </label>
          <label>
            Payer or payee wallet
            <input name="walletAddress" placeholder="0x…" />
          </label>
        </div>
        <div class="pair">
          <label>
            Request ID
            <input name="requestId" />
          </label>
          <label>
            Transaction hash
            <input name="txHash" placeholder="0x…" />
          </label>
        </div>
        <div class="pair">
          <label>
            Kind
            <select name="type">
              <option value="">Any</option>
              {TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          </label>
          <label>
            Currency
            <input name="currency" placeholder="USDC" />
          </label>
        </div>
        <div class="actions">
          <button type="submit">Search</button>
          {/* Offered for a search that was answered: a refused one would download an error. */}
          {results.kind === 'found' && (
            <a class="button quiet" href={exportHref} download="payments.csv">
              Download CSV
            </a>
          )}
        </div>
      </form>
      {results.kind === 'loading' && <p class="notice">Searching…</p>}
      {results.kind === 'failed' && (
        <p class="problem" role="alert">
          {results.message}
        </p>
      )}
      {results.kind === 'found' && (
        <>
          <p
            class="notice"
            role="status"
            data-field="payments-found"
            tabIndex={-1}
            ref={search.focusAfterPaging}
          >
            {results.page.pagination.totalExact ? '' : 'About '}
            {results.page.pagination.total.toLocaleString('en-US')}{' '}
            {results.page.pagination.total === 1 ? 'payment' : 'payments'}
          </p>
          {results.page.payments.length > 0 && (
            <Table
              caption="Payments found"
              columns={['Paid', 'Amount', 'Kind', 'Reference', 'Payer', 'Transaction']}
              rows={results.page.payments.map((payment) => ({
                key: payment.id,
                id: payment.id,
                cells: [
                  formatTime(payment.timestamp),
                  `${payment.amount} ${payment.currency}`,
                  payment.type,
                  payment.request.reference ?? '—',
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
          <Pager {...search} />
        </>
      )}
    </main>
  );
}
