import { useState } from 'preact/hooks';
import type { DashboardConfig } from './config.ts';
import { type EmailMode, type Session, signInWithEmail } from './session.ts';

const TITLES: Readonly<Record<EmailMode, string>> = {
  'log-in': 'Sign in to payreq',
  register: 'Create a payreq account',
};
const ACTIONS: Readonly<Record<EmailMode, string>> = {
  'log-in': 'Sign in',
  register: 'Create account',
};

/** Sign in with e-mail and password, or create an account that way. */
export function SignIn(props: {
  readonly config: DashboardConfig;
  readonly notice: string | null;
  readonly onSignedIn: (session: Session) => void;
}) {
  const [mode, setMode] = useState<EmailMode>('log-in');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = async (form: FormData) => {
    setBusy(true);
    setProblem(null);
    try {
      const session = await signInWithEmail(props.config, mode, {
        email: String(form.get('email') ?? ''),
        password: String(form.get('password') ?? ''),
      });
      props.onSignedIn(session);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
      setBusy(false);
    }
  };

  const other: EmailMode = mode === 'log-in' ? 'register' : 'log-in';
  return (
    <main class="card" data-screen="sign-in">
      <h1>{TITLES[mode]}</h1>
      {props.notice !== null && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
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
        {problem !== null && (
          <p class="problem" role="alert">
            {problem}
          </p>
        )}
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
