import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

/** Helpers to run payreq as a user does: real processes, real ports on loopback. */

/**
 * Options for a test that starts several payreq processes (CLI commands, servers), each opening
 * the database: 1.5–3 s a start alone, and up to twice that while CI's other worker starts its
 * own. Such a test took 17–25 s against the suite's 30 s default, and timed out once in CI.
 */
export const MANY_PROCESSES = { timeout: 120_000 };

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

/** Puts a copy of an already created and migrated embedded database in `dataDir`. */
export function copyMigratedDatabase(dataDir: string): void {
  cpSync(inject('migratedPgdata'), join(dataDir, 'pgdata'), { recursive: true });
}

/**
 * The environment for a payreq process a test starts: the runner's own, minus what the test
 * must choose (Vite sets BASE_URL=/; the database is the test's), with a fresh DATA_DIR, the
 * sandbox off unless asked, and `extra` on top. `migrated` puts a copy of an already created
 * and migrated embedded database in DATA_DIR, for a test whose subject is not a first start;
 * without it the first process creates the database, as on a new machine.
 */
export function processEnv(
  extra: Record<string, string> = {},
  options: { readonly migrated?: boolean } = {},
): NodeJS.ProcessEnv {
  const { DATABASE_URL, BASE_URL, AUTH_URL, PAY_URL, PORT, ...rest } = process.env;
  const dataDir = mkdtempSync(join(tmpdir(), 'payreq-process-'));
  if (options.migrated) copyMigratedDatabase(dataDir);
  return {
    ...rest,
    LOG_LEVEL: 'info',
    SANDBOX: 'false',
    DATA_DIR: dataDir,
    ...extra,
  };
}

export interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `payreq <args>` on this Node; `nodeArgs` go to Node itself (e.g. `--import` a hook). */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  options: { readonly nodeArgs?: readonly string[]; readonly timeoutMs?: number } = {},
): Promise<Result> {
  return run(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], env, {
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  });
}

/**
 * Any program (`npx`, `npm`), from the repository root, without a shell. With `timeoutMs`, the
 * program and all it started (a group of its own) are killed if it has not ended by then, and
 * the result's code is null: for a test that expects a process to end, which must not leave
 * it running when it does not.
 */
export function run(
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  options: { readonly timeoutMs?: number } = {},
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: ROOT, env, detached: options.timeoutMs !== undefined });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
          }, options.timeoutMs);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `payreq destination create`: the destination id of `address` in `currency` for an account. */
export async function createDestinationByCli(
  env: NodeJS.ProcessEnv,
  target: { readonly accountId: string; readonly address: string; readonly currency: string },
): Promise<string> {
  const args = ['destination', 'create', '--account', target.accountId, '--address'];
  const result = await runCli(
    [...args, target.address, '--currency', target.currency, '--json'],
    env,
  );
  if (result.code !== 0) throw new Error(`destination create failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { destinationId: string }).destinationId;
}

/**
 * An RPC address nothing answers on, for "the node is down" tests. Port 1 (tcpmux) is below
 * the ephemeral range, so no server a parallel test starts on port 0 can take it, as one did
 * a port `freePort` had just handed out and released.
 */
export const REFUSING_URL = 'http://127.0.0.1:1';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
  /** Sends the signal; resolves with the exit code (npm's under npm, once all it ran ended). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `payreq serve` (or `npm start`, as the README has it) and resolves once it logs that
 * it listens: on `env.PORT` when the caller chose the port, else on a free one. `entry` runs
 * `payreq serve` from another file than the sources' (a server bundle).
 */
export async function startServer(
  env: NodeJS.ProcessEnv,
  options: {
    readonly timeoutMs?: number;
    readonly npmStart?: boolean;
    readonly entry?: string;
  } = {},
): Promise<ServerProcess> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const child = options.npmStart
    ? spawn('npm', ['start'], {
        cwd: ROOT,
        env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
        // A group of its own, signalled as a whole (as Ctrl-C signals a terminal's), so
        // nothing npm starts outlives the test.
        detached: true,
      })
    : spawn(process.execPath, [options.entry ?? CLI, 'serve'], {
        cwd: ROOT,
        env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
      });
  let output = '';
  // Under npm, payreq shares npm's output pipes: they close once payreq too has exited.
  const exited = new Promise<number | null>((resolve) =>
    child.on(options.npmStart ? 'close' : 'exit', (code) => resolve(code)),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Nothing the test started may outlive it.
      if (options.npmStart && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('payreq listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) {
        if (options.npmStart && child.pid !== undefined) process.kill(-child.pid, signal);
        else child.kill(signal);
      }
      return exited;
    },
  };
}
