import { useState } from 'preact/hooks';
import { messageOf } from './api.ts';

/**
 * A page's changes (create, revoke, remove): one at a time, each followed by `after` (listing
 * again), its failure kept as `problem` to say above the page's form, unless it ended the
 * session (`ended` then shows the sign-in page).
 */
export function useChange(after: () => void, ended: (error: unknown) => boolean) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  /** Runs `run`; true when it succeeded. */
  const change = async (run: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setProblem(null);
    try {
      await run();
      after();
      return true;
    } catch (error) {
      if (!ended(error)) setProblem(messageOf(error));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, problem, change };
}

/** The problem of a change, announced where the page shows it. */
export function Problem(props: { readonly problem: string | null }) {
  return props.problem === null ? null : (
    <p class="problem" role="alert">
      {props.problem}
    </p>
  );
}
