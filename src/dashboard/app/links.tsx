import { useEffect, useState } from 'preact/hooks';
import { call } from './api.ts';
import { Problem, useChange } from './change.tsx';
import { type DashboardConfig, symbolOf } from './config.ts';
import { type Destination, readDestinations } from './destinations.tsx';
import { formatTime } from './format.ts';
import { ListStatus } from './list-status.tsx';
import { type Listed, readList } from './listed.ts';
import { Pager, usePaged } from './paging.tsx';
import { PayoutLinkForm } from './payout-link-form.tsx';
import { followLink, goTo, hrefOf } from './router.ts';
import { Table } from './table.tsx';

/** A link as `GET /v2/secure-payments` lists it. */
export interface LinkItem {
  readonly token: string;
  readonly securePaymentUrl: string;
  readonly status: string;
  readonly payout: boolean;
  readonly paymentType: 'single' | 'batch' | 'multicall';
  readonly requestIds: readonly string[];
  readonly network: string;
  readonly reference: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly completedAt: string | null;
}

interface LinkPage {
  readonly securePayments: readonly LinkItem[];
  readonly pagination: { readonly nextCursor: string | null };
}

const PAGE_SIZE = 20;
/** The fiat currencies a link can be written in (paid in the destination's token). */
const FIATS = ['USD', 'EUR', 'GBP', 'CNY', 'JPY'] as const;

/** What a link's status is called on the dashboard. */
export const STATUS_WORDS: Readonly<Record<string, string>> = {
  pending: 'Awaiting payment',
  completed: 'Paid',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

function linksShown(count: number): string {
  if (count === 0) return 'No links here.';
  return `${count} ${count === 1 ? 'link' : 'links'} on this page, newest first`;
}

/** The statuses the list filters on, as `GET /v2/secure-payments?status=` takes them. */
const STATUS_FILTERS = ['pending', 'completed', 'expired'] as const;

/** The status the address asks for (`?status=pending`, as Home links to), else none. */
function statusOfAddress(): string {
  const status = new URLSearchParams(location.search).get('status') ?? '';
  return (STATUS_FILTERS as readonly string[]).includes(status) ? status : '';
}

function filtersOf(form: FormData): URLSearchParams {
  const query = new URLSearchParams();
  const kind = String(form.get('kind') ?? '');
  if (kind !== '') query.set('payout', kind === 'payout' ? 'true' : 'false');
  const status = String(form.get('status') ?? '');
  if (status !== '') query.set('status', status);
  const from = String(form.get('from') ?? '');
  const to = String(form.get('to') ?? '');
  if (from !== '') query.set('createdFrom', `${from}T00:00:00Z`);
  if (to !== '') query.set('createdTo', `${to}T23:59:59.999Z`);
  return query;
}

/**
 * The account's links: create an incoming one (an amount in the destination's token or in a
 * fiat, a reference, where the payer goes after), and list them all, newest first, each
 * opening its own page.
 */
export function Links(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
}) {
  const { config, ended } = props;
  const [destinations, setDestinations] = useState<Listed<Destination>>({ kind: 'loading' });
  const [chosen, setChosen] = useState('');

  useEffect(() => {
    readList(readDestinations(config.apiBase, true), setDestinations, ended);
  }, [config, ended]);
  const list = usePaged<LinkPage>({
    apiBase: config.apiBase,
    path: '/v2/secure-payments',
    initial: () => {
      const status = statusOfAddress();
      return new URLSearchParams(status === '' ? {} : { status });
    },
    pageSize: PAGE_SIZE,
    nextCursorOf: (page) => page.pagination.nextCursor,
    ended,
  });
  const { results } = list;
  const { busy, problem, change } = useChange(() => undefined, ended);

  const usable = destinations.kind === 'listed' ? destinations.items : [];
  const destination = usable.find((d) => d.destinationId === chosen) ?? usable[0];
  const symbol =
    destination === undefined
      ? 'the token'
      : symbolOf(config, destination.network, destination.tokenAddress);
  const networkName = (id: string) => config.networks.find((n) => n.id === id)?.name ?? id;

  const create = (form: HTMLFormElement) => {
    if (!destination) return;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const pricedIn = text('pricedIn');
    const body = {
      requests: [
        {
          destinationId: destination.destinationId,
          amount: text('amount'),
          ...(pricedIn !== '' && { invoiceCurrency: pricedIn }),
        },
      ],
      ...(text('reference') !== '' && { reference: text('reference') }),
      ...(text('redirectUrl') !== '' && { redirectUrl: text('redirectUrl') }),
    };
    void change(async () => {
      const made = await call<{ token: string }>(config.apiBase, '/v2/secure-payments', {
        method: 'POST',
        body,
      });
      goTo(hrefOf(config.basePath, `links/${made.token}`));
    });
  };

  return (
    <main class="card" data-screen="links">
      <h1>Links</h1>
      <section aria-labelledby="new-link">
        <h2 id="new-link">Ask for a payment</h2>
        <Problem problem={problem} />
        <ListStatus
          listed={destinations}
          loading="Loading the destinations…"
          empty="Add a destination first: a link pays one."
        />
        {usable.length > 0 && (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              create(event.currentTarget);
            }}
          >
            <label>
              Paid to
              <select
                name="destination"
                value={destination?.destinationId}
                onChange={(event) => setChosen(event.currentTarget.value)}
              >
                {usable.map((d) => (
                  <option key={d.destinationId} value={d.destinationId}>
                    {`${symbolOf(config, d.network, d.tokenAddress)} on ${networkName(d.network)} to ${d.walletAddress.slice(0, 8)}…${d.walletAddress.slice(-4)}`}
                  </option>
                ))}
              </select>
            </label>
            <div class="pair">
              <label>
                Amount
                <input name="amount" required inputMode="decimal" placeholder="25.00" />
              </label>
              <label>
                In
                <select name="pricedIn">
                  <option value="">{symbol}</option>
                  {FIATS.map((fiat) => (
                    <option key={fiat} value={fiat}>
                      {fiat} (paid in {symbol})
                    </option>
                  ))}
                </select>
              </label>
            </div>
            <div class="pair">
              <label>
                Reference (optional)
                <input name="reference" maxLength={255} placeholder="order-1042" />
              </label>
              <label>
                After paying, send the payer to (optional)
                <input name="redirectUrl" type="url" placeholder="https://shop.example/thanks" />
              </label>
            </div>
            <button type="submit" disabled={busy}>
              Create link
            </button>
          </form>
        )}
      </section>
      <PayoutLinkForm config={config} ended={ended} />
      <section aria-labelledby="all-links">
        <h2 id="all-links">All links</h2>
        <form
          class="filters"
          onSubmit={(event) => {
            event.preventDefault();
            list.search(filtersOf(new FormData(event.currentTarget)));
          }}
        >
          <div class="pair">
            <label>
              Kind
              <select name="kind">
                <option value="">Any</option>
                <option value="incoming">Incoming</option>
                <option value="payout">Payouts</option>
              </select>
            </label>
            <label>
              Status
              <select name="status" defaultValue={statusOfAddress()}>
                <option value="">Any</option>
                {STATUS_FILTERS.map((status) => (
                  <option key={status} value={status}>
                    {STATUS_WORDS[status]}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Made from (UTC)
              <input name="from" type="date" />
            </label>
            <label>
              Made until (UTC)
              <input name="to" type="date" />
            </label>
          </div>
          <div class="actions">
            <button type="submit">Filter</button>
          </div>
        </form>
        {results.kind === 'loading' && <p class="notice">Loading the links…</p>}
        {results.kind === 'failed' && (
          <p class="problem" role="alert">
            {results.message}
          </p>
        )}
        {results.kind === 'found' && (
          <p class="notice" role="status" tabIndex={-1} ref={list.focusAfterPaging}>
            {linksShown(results.page.securePayments.length)}
          </p>
        )}
        {results.kind === 'found' && results.page.securePayments.length > 0 && (
          <Table
            caption="Links"
            columns={['Made', 'Reference', 'Kind', 'Status', 'Link']}
            rows={results.page.securePayments.map((link) => {
              const href = hrefOf(config.basePath, `links/${link.token}`);
              return {
                key: link.token,
                id: link.token,
                cells: [
                  formatTime(link.createdAt),
                  link.reference ?? '—',
                  `${link.payout ? 'Payout' : 'Incoming'}, ${link.paymentType}`,
                  STATUS_WORDS[link.status] ?? link.status,
                  <a key="open" href={href} onClick={(event) => followLink(event, href)}>
                    Open
                  </a>,
                ],
              };
            })}
          />
        )}
        <Pager {...list} />
      </section>
    </main>
  );
}
