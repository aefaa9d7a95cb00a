import { inject } from 'vitest';
import { emptyPostgresDatabase } from './database.ts';
import { runCli } from './process.ts';

/**
 * What the fault tests (test/e2e/fault-*.test.ts) and the killed-process tests (crash-recovery,
 * the tracker restarts) share besides their fault injectors.
 */

/**
 * The database for a payreq process in this run: a fresh Postgres database on the suite's
 * server when DATABASE_URL is set (dropped by the returned step), else none (the process's
 * embedded one in its DATA_DIR).
 */
export async function suiteDatabase(
  cleanup: (() => Promise<void>)[],
): Promise<Record<string, string>> {
  if (inject('testDatabase').kind !== 'postgres') return {};
  const database = await emptyPostgresDatabase();
  cleanup.push(database.drop);
  return { DATABASE_URL: database.url };
}

/** Polls `read` every 50 ms until `done` holds of its answer, then returns it; throws at `ms`. */
export async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `payreq account create` in `env`: the new account's id and API key. */
export async function createAccountByCli(
  env: NodeJS.ProcessEnv,
  name: string,
): Promise<{ accountId: string; apiKey: string }> {
  const result = await runCli(['account', 'create', '--name', name, '--json'], env);
  if (result.code !== 0) throw new Error(`account create failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as { accountId: string; apiKey: string };
}

/** A JSON call to a payreq process with an API key: the status, the body, how long it took. */
export async function call(
  base: string,
  apiKey: string,
  path: string,
  options: { readonly body?: unknown; readonly method?: string; readonly timeoutMs?: number } = {},
): Promise<{ status: number; body: unknown; retryAfter: string | null; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${base}${path}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return {
    status: response.status,
    body,
    retryAfter: response.headers.get('retry-after'),
    ms: performance.now() - started,
  };
}
