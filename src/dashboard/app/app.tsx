import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, messageOf } from './api.ts';
import { ApiKeys } from './api-keys.tsx';
import { ClientIds } from './client-ids.tsx';
import type { DashboardConfig } from './config.ts';
import { Destinations } from './destinations.tsx';
import { Home } from './home.tsx';
import { Layout } from './layout.tsx';
import { LinkPage } from './link-page.tsx';
import { Links } from './links.tsx';
import { Payments } from './payments.tsx';
import { Payouts } from './payouts.tsx';
import { PAGES, type Route, useRoute } from './router.ts';
import { currentSession, type Session, signOut } from './session.ts';
import { SignIn } from './sign-in.tsx';
import { Webhooks } from './webhooks.tsx';

type State =
  | { readonly kind: 'loading' }
  | { readonly kind: 'failed'; readonly title: string; readonly message: string }
  | { readonly kind: 'signed-out'; readonly notice: string | null }
  | { readonly kind: 'signed-in'; readonly session: Session };

const ENDED = 'Your session ended: sign in again.';

/** The dashboard: the sign-in page until a session exists, then the page the address names. */
export function App({ config }: { readonly config: DashboardConfig }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const route = useRoute(config.basePath);
  const load = useCallback(() => {
    setState({ kind: 'loading' });
    currentSession(config).then(
      (session) =>
        setState(
          session === null ? { kind: 'signed-out', notice: null } : { kind: 'signed-in', session },
        ),
      (error: unknown) =>
        setState({
          kind: 'failed',
          title: 'The dashboard could not load',
          message: messageOf(error),
        }),
    );
  }, [config]);
  useEffect(load, [load]);

  // A call answered 401 midway: the session ended (idle too long, logged out elsewhere).
  const ended = useCallback((error: unknown) => {
    if (error instanceof ApiError && error.status === 401) {
      setState({ kind: 'signed-out', notice: ENDED });
      return true;
    }
    return false;
  }, []);

  switch (state.kind) {
    case 'loading':
      return (
        <main class="card" data-screen="loading">
          <h1>Loading the dashboard…</h1>
        </main>
      );
    case 'failed':
      return (
        <main class="card" data-screen="failed">
          <h1>{state.title}</h1>
          <p role="alert">{state.message}</p>
          <button type="button" onClick={load}>
            Try again
          </button>
        </main>
      );
    case 'signed-out':
      return (
        <SignIn
          config={config}
          notice={state.notice}
          onSignedIn={(session) => setState({ kind: 'signed-in', session })}
        />
      );
    case 'signed-in':
      return (
        <Layout
          basePath={config.basePath}
          route={route}
          session={state.session}
          onSignOut={() => {
            signOut(config).then(
              () => setState({ kind: 'signed-out', notice: 'You are signed out.' }),
              (error: unknown) =>
                setState({
                  kind: 'failed',
                  title: 'You may still be signed in',
                  message: `Signing out did not reach payreq: ${messageOf(error)}`,
                }),
            );
          }}
        >
          <PageOf route={route} config={config} ended={ended} />
        </Layout>
      );
  }
}

/** The page the address names, or the merchant told there is none. */
function PageOf(props: {
  readonly route: Route | null;
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
}) {
  const { route, config, ended } = props;
  // The tab names the page, for history and for screen readers announcing the change.
  const title =
    route === null
      ? 'No such page'
      : route.page === 'link'
        ? 'Link'
        : (PAGES.find((page) => page.path === route.page)?.title ?? 'No such page');
  useEffect(() => {
    document.title = `${title} · payreq dashboard`;
  }, [title]);
  if (route === null) {
    return (
      <main class="card" data-screen="not-found">
        <h1>No such page</h1>
        <p>The dashboard has no page at this address: choose one above.</p>
      </main>
    );
  }
  switch (route.page) {
    case '':
      return <Home config={config} ended={ended} />;
    case 'links':
      return <Links config={config} ended={ended} />;
    case 'link':
      return <LinkPage key={route.token} config={config} ended={ended} token={route.token} />;
    case 'payments':
      return <Payments config={config} ended={ended} />;
    case 'payouts':
      return <Payouts config={config} ended={ended} />;
    case 'destinations':
      return <Destinations config={config} ended={ended} />;
    case 'webhooks':
      return <Webhooks config={config} ended={ended} />;
    case 'client-ids':
      return <ClientIds config={config} ended={ended} />;
    case 'api-keys':
      return <ApiKeys config={config} ended={ended} />;
  }
}
