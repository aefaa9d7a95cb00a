import { useState } from 'preact/hooks';
import { messageOf } from './api.ts';
import type { DashboardConfig } from './config.ts';
import { type EmailMode, type Session, signInWithEmail } from './session.ts';
import { WalletSignIn } from './wallet-buttons.tsx';

const TITLES: Readonly<Record<EmailMode, string>> = {
  'log-in': 'Sign in to payreq',
  register: 'Create a payreq account',
};
const ACTIONS: Readonly<Record<EmailMode, string>> = {
  'log-in': 'Sign in',
  register: 'Create account',
};

/**
 * Sign in with a browser wallet, or with e-mail and password (or create an account that way).
 * One problem shows at a time, whichever way was tried last.
 */
export function SignIn(props: {
  readonly config: DashboardConfig;
  readonly notice: string | null;
  readonly onSignedIn: (session: Session) => void;
}) {
  const [mode, setMode] = useState<EmailMode>('log-in');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const attempt = async (signIn: () => Promise<Session>) => {
    setBusy(true);
    setProblem(null);
    try {
      props.onSignedIn(await signIn());
    } catch (error) {
      setProblem(messageOf(error));
      setBusy(false);
    }
  };
  const submit = (form: FormData) =>
    attempt(() =>
      signInWithEmail(props.config, mode, {
        email: String(form.get('email') ?? ''),
        password: String(form.get('password') ?? ''),
      }),
    );

  const other: EmailMode = mode === 'log-in' ? 'register' : 'log-in';
  return (
    <main class="card" data-screen="sign-in">
      <h1>{TITLES[mode]}</h1>
      {props.notice !== null && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      {problem !== null && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      <WalletSignIn config={props.config} busy={busy} attempt={attempt} />
      <h2 class="divider">Or with e-mail</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit(new FormData(event.currentTarget));
        }}
      >
        <label>
          E-mail
          <input name="email" type="email" autocomplete="username" required maxLength={254} />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autocomplete={mode === 'register' ? 'new-password' : 'current-password'}
            required
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'One moment…' : ACTIONS[mode]}
        </button>
      </form>
      <button
        type="button"
        class="quiet"
        onClick={() => {
          setMode(other);
          setProblem(null);
        }}
      >
        {mode === 'log-in' ? 'No account yet? Create one' : 'Have an account? Sign in'}
      </button>
    </main>
  );
}
