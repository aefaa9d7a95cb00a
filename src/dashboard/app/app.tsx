import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import type { DashboardConfig } from './config.ts';
import { Home } from './home.tsx';
import { Layout } from './layout.tsx';
import { currentSession, type Session, signOut } from './session.ts';
import { SignIn } from './sign-in.tsx';

type State =
  | { readonly kind: 'loading' }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'signed-out'; readonly notice: string | null }
  | { readonly kind: 'signed-in'; readonly session: Session };

const ENDED = 'Your session ended: sign in again.';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The dashboard: the sign-in page until a session exists, then the page the address names. */
export function App({ config }: { readonly config: DashboardConfig }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
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
          message: error instanceof Error ? error.message : String(error),
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
          <h1>The dashboard could not load</h1>
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
          session={state.session}
          onSignOut={() => {
            signOut(config).then(
              () => setState({ kind: 'signed-out', notice: 'You are signed out.' }),
              (error: unknown) => setState({ kind: 'failed', message: messageOf(error) }),
            );
          }}
        >
          <Home config={config} ended={ended} />
        </Layout>
      );
  }
}
