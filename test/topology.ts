import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { parse } from 'yaml';
import { emptyPostgresDatabase } from './database.ts';
import {
  freePort,
  processEnv,
  type Result,
  ROOT,
  run,
  type ServerProcess,
  startServer,
} from './process.ts';
import { type RedisServer, startRedis } from './redis-server.ts';

/**
 * The deployment of compose.yaml run as real processes on loopback: the file is read and its
 * variables interpolated as `docker compose` does, its Postgres becomes a fresh database on the
 * machine's Postgres, its Redis a redis-server of the test's own on a free port, and each
 * payreq service runs its command (the image's, the Dockerfile's CMD, unless it names another)
 * with its environment, its hosts and ports moved to loopback. Commands run the server bundle
 * (dist/server, which the suite's global setup builds), as the image does.
 */

interface ComposeService {
  readonly image?: string;
  readonly build?: unknown;
  readonly command?: readonly string[];
  readonly environment?: Readonly<Record<string, string>>;
  readonly depends_on?: Readonly<Record<string, { readonly condition: string }>>;
  readonly healthcheck?: { readonly test: readonly string[] };
  readonly ports?: readonly string[];
  readonly stop_grace_period?: string;
}

interface Compose {
  readonly services: Readonly<Record<string, ComposeService>>;
}

/** `${NAME}`, `${NAME:-default}`, `${NAME-default}`, `${NAME:?error}` and `$$`, as compose reads them. */
function interpolate(text: string, variables: Readonly<Record<string, string>>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g,
    (match, name: string | undefined, operator: string | undefined, word: string | undefined) => {
      if (name === undefined) return '$';
      const value = variables[name];
      const missing = value === undefined || (operator?.startsWith(':') === true && value === '');
      if (!missing) return value;
      if (operator?.endsWith('?')) throw new Error(`compose.yaml: ${name}: ${word ?? match}`);
      return operator ? (word ?? '') : '';
    },
  );
}

/** compose.yaml with `variables` standing for the operator's `.env`. */
function readCompose(variables: Readonly<Record<string, string>>): Compose {
  const text = readFileSync(join(ROOT, 'compose.yaml'), 'utf8');
  // Compose merges `<<` keys (YAML 1.1) and interpolates scalars after parsing.
  return parse(
    text,
    (_key, value: unknown) => (typeof value === 'string' ? interpolate(value, variables) : value),
    { merge: true },
  ) as Compose;
}

export interface Topology {
  readonly compose: Compose;
  readonly redis: RedisServer;
  readonly databaseUrl: string;
  /** The running payreq services by name (one-shot ones, such as `migrate`, have ended). */
  readonly servers: ReadonlyMap<string, ServerProcess>;
  server(name: string): ServerProcess;
  /** A service's environment as its process got it (for the CLI, say). */
  env(name: string): NodeJS.ProcessEnv;
  /** `payreq <args>` from the image's bundle with a service's environment. */
  cli(name: string, args: readonly string[]): Promise<Result>;
  /** One statement on the topology's database. */
  query<Row extends pg.QueryResultRow>(text: string): Promise<Row[]>;
  /** Every process stopped (SIGTERM), Redis stopped, the database dropped. */
  close(): Promise<void>;
}

export interface TopologyOptions {
  /** What the operator's `.env` would hold (SECRET_KEY and POSTGRES_PASSWORD are made up). */
  readonly variables?: Readonly<Record<string, string>>;
  /** Set on every payreq process over compose's values (poll intervals, test chain addresses). */
  readonly overrides?: Readonly<Record<string, string>>;
  /** Only these payreq services (and what they depend on); all by default. */
  readonly only?: readonly string[];
}

/** Generous: on a shared CI machine four payreq processes start at once. */
const START_TIMEOUT_MS = 90_000;

/** The image's command, as the Dockerfile's last `CMD ["node", "<file>", ...]` has it. */
function imageCommand(): readonly string[] {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const cmd = [...dockerfile.matchAll(/^CMD (\[.*\])$/gm)].at(-1)?.[1];
  if (cmd === undefined) throw new Error('Dockerfile: no CMD');
  return JSON.parse(cmd) as string[];
}

/** `node <file> <args>` with the repository as the image's working directory. */
function nodeCommand(command: readonly string[]): { entry: string; args: string[] } {
  const [program, file, ...args] = command;
  if (program !== 'node' || file === undefined) {
    throw new Error(`expected \`node <file> ...\`, got ${command.join(' ')}`);
  }
  return { entry: join(ROOT, file), args };
}

/** The healthcheck of a service, run against its loopback port: resolves once it passes. */
async function passHealthcheck(service: ComposeService, port: number): Promise<void> {
  const [kind, program, ...args] = service.healthcheck?.test ?? [];
  if (kind !== 'CMD' || program !== 'node') throw new Error('expected a `node` healthcheck');
  const moved = args.map((arg) => arg.replace('127.0.0.1:8080', `127.0.0.1:${port}`));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const result = await run(process.execPath, moved, process.env, { timeoutMs: 5_000 });
    if (result.code === 0) return;
    if (Date.now() > deadline) throw new Error(`healthcheck never passed on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Starts compose.yaml's topology: see the file's comment. Needs the suite's Postgres. */
export async function startTopology(options: TopologyOptions = {}): Promise<Topology> {
  const compose = readCompose({
    POSTGRES_PASSWORD: 'unused-on-loopback',
    SECRET_KEY: randomBytes(32).toString('hex'),
    ...options.variables,
  });
  const database = await emptyPostgresDatabase();
  const redis = await startRedis().catch(async (error: unknown) => {
    await database.drop();
    throw error;
  });
  const servers = new Map<string, ServerProcess>();
  const envs = new Map<string, NodeJS.ProcessEnv>();
  const topology: Topology = {
    compose,
    redis,
    databaseUrl: database.url,
    servers,
    server(name) {
      const server = servers.get(name);
      if (!server) throw new Error(`no running service ${name}`);
      return server;
    },
    env(name) {
      const env = envs.get(name);
      if (!env) throw new Error(`no service ${name}`);
      return env;
    },
    cli(name, args) {
      const { entry } = nodeCommand(imageCommand());
      return run(process.execPath, [entry, ...args], topology.env(name), { timeoutMs: 60_000 });
    },
    async query<Row extends pg.QueryResultRow>(text: string) {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query<Row>(text)).rows;
      } finally {
        await client.end();
      }
    },
    async close() {
      await Promise.all([...servers.values()].map((server) => server.stop()));
      await redis.stop();
      await database.drop();
    },
  };
  const startOne = async (name: string) => {
    const service = compose.services[name];
    if (!service?.build) return;
    const env = serviceEnv(service, { database: database.url, redis: redis.url });
    const port = await freePort();
    const full = processEnv({
      ...env,
      ...options.overrides,
      HOST: '127.0.0.1',
      PORT: String(port),
    });
    envs.set(name, full);
    const { entry, args } = nodeCommand(service.command ?? imageCommand());
    if (args[0] !== 'serve') {
      // A one-shot service (migrate): what depends on it waits for it to end well.
      const result = await run(process.execPath, [entry, ...args], full, { timeoutMs: 60_000 });
      if (result.code !== 0) throw new Error(`${name} exited ${result.code}: ${result.stderr}`);
      return;
    }
    servers.set(name, await startServer(full, { entry, timeoutMs: START_TIMEOUT_MS }));
    await passHealthcheck(service, port);
  };
  try {
    // As compose does: each service once what it depends on is done, the rest at once.
    for (const wave of startWaves(compose, options.only)) {
      const results = await Promise.allSettled(wave.map(startOne));
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    }
  } catch (error) {
    await topology.close();
    throw error;
  }
  return topology;
}

/** The services (`only` and what they depend on) in waves, each after the ones it needs. */
function startWaves(compose: Compose, only: readonly string[] | undefined): string[][] {
  const wanted = new Set<string>();
  const add = (name: string) => {
    if (wanted.has(name)) return;
    wanted.add(name);
    for (const dependency of Object.keys(compose.services[name]?.depends_on ?? {})) add(dependency);
  };
  for (const name of only ?? Object.keys(compose.services)) add(name);
  const waves: string[][] = [];
  const done = new Set<string>();
  while (done.size < wanted.size) {
    const wave = [...wanted].filter(
      (name) =>
        !done.has(name) &&
        Object.keys(compose.services[name]?.depends_on ?? {}).every((needed) => done.has(needed)),
    );
    if (wave.length === 0) throw new Error('compose.yaml: a dependency cycle');
    for (const name of wave) done.add(name);
    waves.push(wave);
  }
  return waves;
}

/**
 * A payreq service's environment with compose's hosts replaced by the test's: DATABASE_URL
 * must name the `postgres` service and REDIS_URL the `redis` one, as a compose network has them.
 */
function serviceEnv(
  service: ComposeService,
  local: { readonly database: string; readonly redis: string },
): Record<string, string> {
  const env = { ...service.environment };
  const database = new URL(env.DATABASE_URL ?? '');
  const redis = new URL(env.REDIS_URL ?? '');
  if (database.hostname !== 'postgres' || redis.hostname !== 'redis') {
    throw new Error('DATABASE_URL and REDIS_URL must name the postgres and redis services');
  }
  return {
    ...env,
    DATABASE_URL: local.database,
    REDIS_URL: `${local.redis}${redis.pathname}`,
  };
}
