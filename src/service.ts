import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { custom } from 'viem';
import type { CredentialBroadcast } from './auth/credential-broadcast.ts';
import { systemClock } from './base/clock.ts';
import { createSecretBox } from './base/secret-box.ts';
import { StartError } from './base/start-error.ts';
import { createChainClients } from './chains/clients.ts';
import { createNetworkProbe, type NetworkProbe } from './chains/network-probe.ts';
import { createChainRegistry } from './chains/registry.ts';
import { createTronGridClient } from './chains/tron-grid.ts';
import type { Config } from './config/config.ts';
import { loadKeyRing, loadSecretKey } from './config/secret-key.ts';
import { createAggregator } from './crosschain/aggregator.ts';
import type { DatabaseHandle } from './db/client.ts';
import { migrateDatabase } from './db/migrate.ts';
import { openDatabase } from './db/open.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import type { App } from './http/types.ts';
import {
  closeMetricsListener,
  createMetricsListener,
  listenForScrapes,
} from './metrics/listener.ts';
import { createMetrics } from './metrics/metrics.ts';
import { missingDataKeysMessage } from './payer/key-check.ts';
import type { SandboxHost } from './sandbox/host.ts';
import type { SandboxThirdParties } from './sandbox/third-parties.ts';
import { buildApp } from './server/app.ts';
import { createWorkers, type Workers } from './workers/workers.ts';

export interface Service {
  /** Built and migrated, not yet listening; routes may still be added before `listen()`. */
  readonly app: App;
  readonly database: DatabaseHandle;
  /** Starts listening; resolves with the port bound (differs from config when PORT=0). */
  listen(): Promise<number>;
  /**
   * Answers `/readyz` 503 for `SHUTDOWN_DRAIN_MS` while serving on, then stops accepting
   * connections, lets in-flight requests finish, and closes the database.
   */
  stop(): Promise<void>;
}

async function startSandbox(
  config: Config,
  database: DatabaseHandle,
  logger: Logger,
): Promise<SandboxHost> {
  const [{ createSandboxHost }, { serveJsonRpc }, { sandboxBridged }] = await Promise.all([
    import('./sandbox/host.ts'),
    import('./sandbox/rpc-server.ts'),
    import('./sandbox/network.ts'),
  ]);
  return createSandboxHost({
    database,
    logger,
    baseUrl: config.baseUrl,
    idleBlockMs: config.sandboxIdleBlockMs,
    bridged: sandboxBridged(config),
    serveRpc: (provider) => serveJsonRpc(provider, { host: config.host }),
  });
}

export async function createService(given: Config, logger: Logger): Promise<Service> {
  let config = given;
  const secretBox = createSecretBox(loadSecretKey(config));
  const keyRing = loadKeyRing(config);
  const database = await openDatabase(config);
  const rateLimiter = createRateLimiter({ redisUrl: config.redisUrl, clock: systemClock, logger });
  // Counted only when something will read them (METRICS_TOKEN or METRICS_PORT).
  const metrics = config.metrics ? createMetrics({ database, clock: systemClock }) : undefined;
  const metricsListener =
    metrics && config.metrics?.listen ? createMetricsListener(metrics, config.metrics) : null;
  let broadcast: CredentialBroadcast | null = null;
  let app: App;
  let demoLink: { url: string; message: string } | null = null;
  let sandbox: SandboxHost | null = null;
  let workers: Workers | null = null;
  let probe: NetworkProbe | null = null;
  let thirdParties: SandboxThirdParties | null = null;
  let draining = false;
  try {
    // With Redis, a credential revoked on one instance is forgotten by all at once.
    if (config.redisUrl !== null) {
      const { startCredentialBroadcast } = await import('./auth/credential-broadcast.ts');
      broadcast = await startCredentialBroadcast({ url: config.redisUrl, logger });
    }
    await migrateDatabase(database);
    // Rows sealed under a key this process lacks would answer 500 at every read: refuse to start.
    const missingKeys = await missingDataKeysMessage(database.db, keyRing);
    if (missingKeys !== null) throw new StartError(missingKeys);
    // One chain per deployment: with Postgres, whichever process holds its lock runs it and
    // serves its JSON-RPC on HOST (a port of its own) for the others.
    // The sandbox (a Hardhat EDR chain, its contracts and wallets) loads only when it runs.
    sandbox = config.sandbox ? await startSandbox(config, database, logger) : null;
    // With no LIFI_URL, the sandbox's two chains are bridged by its own aggregator.
    if (sandbox?.aggregatorUrl) {
      config = { ...config, crosschain: { ...config.crosschain, url: sandbox.aggregatorUrl } };
    }
    const second = sandbox?.second ?? null;
    const chains = createChainRegistry(
      config,
      sandbox ? [sandbox.network, ...(second ? [second.network] : [])] : undefined,
    );
    const clients = createChainClients({
      config,
      chains,
      ...(sandbox && {
        transports: {
          sandbox: custom(sandbox.provider, { retryCount: 0 }),
          ...(second && { 'sandbox-b': custom(second.provider, { retryCount: 0 }) }),
        },
      }),
    });
    const tronRpc = config.networks.tron.rpcUrl;
    probe = createNetworkProbe({
      chains,
      clients,
      tron: tronRpc
        ? createTronGridClient({
            baseUrl: tronRpc,
            ...(config.tronApiKey && { apiKey: config.tronApiKey }),
          })
        : null,
      logger,
      clock: systemClock,
    });
    const networkReadiness = probe.status;
    // With no COMPLIANCE_URL, SCREENING_*_URL or OFFRAMP_URL, the sandbox runs its own fakes.
    if (sandbox) {
      const { startSandboxThirdParties } = await import('./sandbox/third-parties.ts');
      thirdParties = await startSandboxThirdParties({ config, sandbox, chains, logger });
      config = thirdParties.config;
    }
    // One routing aggregator (one circuit breaker) for the API's quotes and the bridge tracker.
    const aggregator = createAggregator({ config: config.crosschain });
    workers = config.workers.enabled
      ? createWorkers({
          config,
          database,
          chains,
          clients,
          logger,
          clock: systemClock,
          secretBox,
          transportNetworks: sandbox ? ['sandbox', ...(second ? ['sandbox-b' as const] : [])] : [],
          aggregator,
          ...(metrics && { metrics }),
        })
      : null;
    const dispatcher = workers?.dispatcher;
    ({ app } = await buildApp({
      config,
      chains,
      clients,
      database,
      logger,
      clock: systemClock,
      secretBox,
      keyRing,
      rateLimiter,
      wakeDispatcher: dispatcher ? () => dispatcher.wake() : undefined,
      sandbox: sandbox ?? undefined,
      relayerHealth: workers ? () => workers?.relayerHealth() ?? [] : undefined,
      aggregator,
      networkReadiness,
      stopping: () => draining,
      metrics,
    }));
    if (sandbox) {
      // A link to try the pay page with at once; a failure here must not stop the service.
      const { createDemoLink, DEMO_AMOUNT, DEMO_PAYER_WALLET } = await import(
        './sandbox/demo-link.ts'
      );
      demoLink = await createDemoLink({
        db: database.db,
        clock: systemClock,
        chains,
        payUrl: config.payUrl,
      })
        .then((link) => ({
          url: link.url,
          message: `try the pay page: ${link.url} asks ${DEMO_AMOUNT} USDC-sandbox; pay it from a browser wallet holding test wallet #${DEMO_PAYER_WALLET}'s key on the sandbox network (README: Pay from a browser wallet)`,
        }))
        .catch((error: unknown) => {
          logger.warn({ err: error }, 'could not create the sandbox demo link');
          return null;
        });
    }
  } catch (error) {
    await thirdParties?.close();
    await sandbox?.close();
    await broadcast?.close();
    await rateLimiter.close();
    await database.close();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    app,
    database,
    async listen() {
      await app.listen({ port: config.port, host: config.host });
      const { port } = app.server.address() as AddressInfo;
      thirdParties?.callTo(`http://127.0.0.1:${port}`);
      logger.info(
        {
          database: database.kind,
          requestApi: `${config.baseUrl}/v2`,
          authApi: `${config.authUrl}/v1`,
          payPage: config.payUrl,
          dashboard: config.dashboardUrl,
        },
        `payreq listening on http://${config.host}:${port}; request API ${config.baseUrl}/v2, auth API ${config.authUrl}/v1, pay page ${config.payUrl}, dashboard ${config.dashboardUrl}/, API reference ${config.baseUrl}/docs`,
      );
      if (demoLink) logger.info({ demoLink: demoLink.url }, demoLink.message);
      const scrapeAt = config.metrics?.listen;
      if (metricsListener && scrapeAt) await listenForScrapes(metricsListener, scrapeAt, logger);
      workers?.start();
      sandbox?.start();
      probe?.start();
      return port;
    },
    stop() {
      // Each step runs even if one before it failed (the database closes last, always); the
      // first failure is reported once all have run.
      stopping ??= (async () => {
        // The load balancer sees readiness fail and stops sending here before the port closes,
        // so no client meets a refused connection.
        draining = true;
        if (config.shutdown.drainMs > 0) {
          await new Promise((resolve) => setTimeout(resolve, config.shutdown.drainMs));
        }
        const failures: unknown[] = [];
        for (const step of [
          () => app.close(),
          async () => metricsListener && closeMetricsListener(metricsListener),
          () => rateLimiter.close(),
          async () => probe?.stop(),
          async () => broadcast?.close(),
          async () => workers?.stop(),
          // The fakes first: the off-ramp's watch reads the sandbox chain.
          async () => thirdParties?.close(),
          async () => sandbox?.close(),
          () => database.close(),
        ]) {
          await Promise.resolve()
            .then(step)
            .catch((error: unknown) => failures.push(error));
        }
        if (failures.length > 0) throw failures[0];
      })();
      return stopping;
    },
  };
}
