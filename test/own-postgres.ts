import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './process.ts';

/**
 * A Postgres server of the test's own, from the machine's Debian binaries: a fresh cluster in
 * a temporary folder, trust auth, listening on 127.0.0.1 on a free port with its socket in that
 * folder, so a test may stop and restart it under a running payreq without touching the
 * machine's own server. Null when no binaries are installed.
 */

const exec = promisify(execFile);
const POSTGRES_ROOT = '/usr/lib/postgresql';
/** initdb and the server refuse to run as root; Debian's `postgres` user runs them then. */
const RUN_AS = 'postgres';

export interface OwnPostgres {
  readonly url: string;
  /** `pg_ctl stop -m fast`: every connection is cut, as in a restart or failover. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its folder. */
  remove(): Promise<void>;
}

/** The newest installed server's bin folder, or null. */
export function postgresBin(): string | null {
  if (!existsSync(POSTGRES_ROOT)) return null;
  const versions = readdirSync(POSTGRES_ROOT)
    .filter((name) => existsSync(join(POSTGRES_ROOT, name, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(POSTGRES_ROOT, versions[0], 'bin');
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = postgresBin();
  if (bin === null) throw new Error(`no Postgres binaries under ${POSTGRES_ROOT}`);
  const root = mkdtempSync(join(tmpdir(), 'payreq-own-postgres-'));
  const dataDir = join(root, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await exec('id', ['-u', RUN_AS]);
    const { stdout: group } = await exec('id', ['-g', RUN_AS]);
    chownSync(root, Number(stdout.trim()), Number(group.trim()));
    chmodSync(root, 0o700);
  }
  const pg = (program: string, args: readonly string[]) =>
    asRoot
      ? exec('runuser', ['-u', RUN_AS, '--', join(bin, program), ...args])
      : exec(join(bin, program), [...args]);
  await pg('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = [
    `-p ${port}`,
    "-c listen_addresses='127.0.0.1'",
    `-c unix_socket_directories='${root}'`,
    '-c fsync=off',
    '-c max_connections=60',
  ].join(' ');
  const ctl = (...args: string[]) =>
    pg('pg_ctl', [
      '-D',
      dataDir,
      '-l',
      join(root, 'log'),
      '-o',
      options,
      '-w',
      '-t',
      '30',
      ...args,
    ]);
  await ctl('start');
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await ctl('stop', '-m', 'fast');
      running = false;
    },
    start: async () => {
      await ctl('start');
      running = true;
    },
    remove: async () => {
      if (running) await ctl('stop', '-m', 'immediate');
      rmSync(root, { recursive: true, force: true });
    },
  };
}
