import { useEffect, useState } from 'preact/hooks';
import { call, messageOf } from './api.ts';
import type { DashboardConfig } from './config.ts';

const DAYS = 30;

interface PaymentPage {
  readonly pagination: { readonly total: number; readonly totalExact: boolean };
}

type Count =
  | { readonly kind: 'loading' }
  | { readonly kind: 'counted'; readonly total: number; readonly exact: boolean }
  | { readonly kind: 'failed'; readonly message: string };

/** The account at a glance: how many payments it received in the last 30 days. */
export function Home(props: {
  readonly config: DashboardConfig;
  /** Whether an error ended the session (the app then shows the sign-in page). */
  readonly ended: (error: unknown) => boolean;
}) {
  const { config, ended } = props;
  const [count, setCount] = useState<Count>({ kind: 'loading' });
  useEffect(() => {
    const since = new Date(Date.now() - DAYS * 24 * 60 * 60_000);
    since.setUTCMilliseconds(0);
    const from = since.toISOString().replace('.000Z', 'Z');
    call<PaymentPage>(
      config.apiBase,
      `/v2/payments?fromDate=${encodeURIComponent(from)}&limit=1`,
    ).then(
      (page) =>
        setCount({
          kind: 'counted',
          total: page.pagination.total,
          exact: page.pagination.totalExact,
        }),
      (error: unknown) => {
        if (!ended(error)) {
          setCount({
            kind: 'failed',
            message: messageOf(error),
          });
        }
      },
    );
  }, [config, ended]);

  return (
    <main class="card" data-screen="home">
      <h1>Home</h1>
      <section aria-labelledby="payments-30d">
        <h2 id="payments-30d">Payments in the last {DAYS} days</h2>
        {count.kind === 'loading' && <p class="figure">…</p>}
        {count.kind === 'counted' && (
          <p class="figure" data-field="payments-30d">
            {count.exact ? '' : '≈ '}
            {count.total.toLocaleString('en-US')}
          </p>
        )}
        {count.kind === 'failed' && (
          <p class="problem" role="alert">
            {count.message}
          </p>
        )}
      </section>
    </main>
  );
}
