import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Transport } from 'viem';
import type { UsageRecorder } from '../src/auth/usage.ts';
import type { Clock } from '../src/base/clock.ts';
import { createKeyRing, type KeyRing } from '../src/base/key-ring.ts';
import { createLogger } from '../src/base/logger.ts';
import { createSecretBox, type SecretBox } from '../src/base/secret-box.ts';
import { type ChainClients, createChainClients } from '../src/chains/clients.ts';
import type { NetworkId } from '../src/chains/networks.ts';
import { type ChainRegistry, createChainRegistry } from '../src/chains/registry.ts';
import { type Config, parseConfig } from '../src/config/config.ts';
import type { Database, DatabaseHandle } from '../src/db/client.ts';
import type { RateLimits } from '../src/http/budgets.ts';
import type { RateLimiter } from '../src/http/rate-limit.ts';
import type { WarnLogger } from '../src/http/rate-limit-store.ts';
import type { App } from '../src/http/types.ts';
import { createMetrics, type Metrics } from '../src/metrics/metrics.ts';
import type { RelayerHealth } from '../src/payouts/recurring/relayer-health.ts';
import type { Eip1193Provider } from '../src/sandbox/chain.ts';
import { sandboxNetwork } from '../src/sandbox/network.ts';
import { buildApp } from '../src/server/app.ts';
import type { RouteEntry } from '../src/server/route-table.ts';
import { checkAnswer } from './conformance.ts';
import { openTestDatabase } from './database.ts';

/** What a test's extra routes may use: the same instances the app runs on. */
export interface ExtendDeps {
  readonly db: Database;
  readonly database: DatabaseHandle;
  readonly clock: TestClock;
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  readonly config: Config;
  readonly secretBox: SecretBox;
}

/** A clock tests move by hand. */
export interface TestClock extends Clock {
  set(at: Date): void;
  advance(ms: number): void;
}

/** Real time that tests can still push forward. */
export function createRealClock(): TestClock {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    set: (at) => {
      offset = at.getTime() - Date.now();
    },
    advance: (ms) => {
      offset += ms;
    },
  };
}

export function createTestClock(start = new Date('2026-11-22T12:00:00Z')): TestClock {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    set: (at) => {
      now = at.getTime();
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

/** Every log line the app wrote, as text, so tests can look for leaked secrets. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(chunk.toString('utf8'));
    done();
  }
  text(): string {
    return this.lines.join('');
  }
  entries(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

export interface TestApp {
  readonly app: App;
  readonly database: DatabaseHandle;
  readonly db: Database;
  readonly config: Config;
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  readonly secretBox: SecretBox;
  readonly keyRing: KeyRing;
  readonly clock: TestClock;
  readonly logs: LogCapture;
  readonly routes: readonly RouteEntry[];
  /** The app's credential-use recorder: `flush()` waits for its background lastUsedAt writes. */
  readonly usage: UsageRecorder;
  /** The app's metrics, made as main.ts makes them: only when `METRICS_*` is set. */
  readonly metrics: Metrics | undefined;
  close(): Promise<void>;
}

export function testConfig(env: Record<string, string> = {}): Config {
  return parseConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'payreq-test-')),
    LOG_LEVEL: 'info',
    BASE_URL: 'http://api.payreq.test',
    SANDBOX: 'false',
    // Tests fire bursts on a loaded machine; the admission tests turn the gate on themselves.
    ADMISSION_MAX_IN_FLIGHT: '0',
    // Tests send traffic to loopback only: a cross-chain quote asked by a test that starts no
    // fake aggregator fails at once (no port 0 to connect to), never reaching the real one.
    LIFI_URL: 'http://127.0.0.1:0',
    ...env,
  });
}

/**
 * The real application on a fresh database of its own. `extend` may add routes (tests that
 * need a failing or slow route) before the app is made ready.
 */
export async function createTestApp(
  options: {
    env?: Record<string, string>;
    extend?: (app: App, deps: ExtendDeps) => void;
    /** In-process chains standing in for networks (see test/chain.ts). */
    transports?: Partial<Record<NetworkId, Transport>>;
    /** The test clock by default; pass a real one when another process checks the time. */
    clock?: TestClock;
    /** A rate limiter, wired in as the server wires it; closed with the app. */
    rateLimiter?: (deps: { clock: Clock; logger: WarnLogger }) => RateLimiter;
    /** Budgets other than the defaults. */
    limits?: Partial<RateLimits>;
    /** Where the built pay page is; the one `npm test` builds (dist/pay-page) by default. */
    payPageDir?: string;
    dashboardDir?: string;
    /** A chain served at /sandbox/rpc, as `npm start` serves the sandbox's. */
    sandbox?: { readonly provider: Eip1193Provider };
    /** The keys sealing personal data; one random key by default. */
    keyRing?: KeyRing;
    /** What `/readyz` reports of recurring relayers (the test's executors). */
    relayerHealth?: () => readonly RelayerHealth[];
  } = {},
): Promise<TestApp> {
  const config = testConfig(options.env);
  const database = await openTestDatabase();
  const logs = new LogCapture();
  const clock = options.clock ?? createTestClock();
  const chains = createChainRegistry(
    config,
    config.sandbox ? sandboxNetwork(config.baseUrl) : undefined,
  );
  const clients = createChainClients({
    config,
    chains,
    ...(options.transports && { transports: options.transports }),
  });
  const secretBox = createSecretBox(randomBytes(32));
  const keyRing = options.keyRing ?? createKeyRing({ defaultKey: randomBytes(32) });
  const logger = createLogger('info', logs);
  const rateLimiter = options.rateLimiter?.({ clock, logger });
  const metrics = config.metrics ? createMetrics({ database, clock }) : undefined;
  const { app, routes, usage } = await buildApp({
    config,
    chains,
    clients,
    secretBox,
    keyRing,
    database,
    logger,
    clock,
    rateLimiter,
    rateLimits: options.limits,
    payPageDir: options.payPageDir,
    dashboardDir: options.dashboardDir,
    sandbox: options.sandbox,
    relayerHealth: options.relayerHealth,
    metrics,
  });
  options.extend?.(app, { db: database.db, database, clock, chains, clients, config, secretBox });
  // Every answer of an operation the reference API defines is checked against its schema;
  // checkAnswer records what it finds and never throws, so the answer itself is untouched.
  app.addHook('onSend', async (request, reply, payload) => {
    const url = request.routeOptions.url;
    // A streamed answer (the CSV export) or an empty one is captured with no body to check:
    // the operations that answer so give that status no schema.
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : '';
    if (url !== undefined) {
      const query = Object.keys((request.query ?? {}) as Record<string, unknown>);
      checkAnswer(request.method, url, query, reply.statusCode, body);
    }
    return payload;
  });
  await app.ready();
  return {
    app,
    database,
    db: database.db,
    config,
    chains,
    clients,
    secretBox,
    keyRing,
    clock,
    logs,
    routes,
    usage,
    metrics,
    close: async () => {
      await app.close();
      await rateLimiter?.close();
      await database.close();
    },
  };
}
