import cookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import { apiKeyRoutes, authRoutes, clientIdRoutes } from '../auth/routes.ts';
import { createUsageRecorder, type UsageRecorder } from '../auth/usage.ts';
import type { Clock } from '../base/clock.ts';
import type { SecretBox } from '../base/secret-box.ts';
import { resolveOrchestratorBranding } from '../branding/resolve.ts';
import { brandingRoutes } from '../branding/routes.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { NetworkReadiness } from '../chains/network-probe.ts';
import { isSandboxNetwork } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { createTronGridClient } from '../chains/tron-grid.ts';
import { createChainTime } from '../commerce/chain-time.ts';
import { serverOperator } from '../commerce/operator.ts';
import { commerceRoutes } from '../commerce/routes.ts';
import { createSendQueue } from '../commerce/send-queue.ts';
import type { Config } from '../config/config.ts';
import { type Aggregator, createAggregator } from '../crosschain/aggregator.ts';
import { createPaymentOptionsReader } from '../crosschain/payment-options.ts';
import { createRouteQuoter } from '../crosschain/quote-route.ts';
import { currencyRoutes } from '../currencies/routes.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { destinationRoutes } from '../destinations/routes.ts';
import { payeeDestinationV1Routes } from '../destinations/v1-routes.ts';
import { feeRoutes } from '../fees/routes.ts';
import type { RateLimits } from '../http/budgets.ts';
import { cookieWriteOrigins } from '../http/cookie-writes.ts';
import { createCredentialCache } from '../http/credential-cache.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { App } from '../http/types.ts';
import { validationOptions } from '../http/validation.ts';
import { journeyRoutes } from '../journeys/routes.ts';
import { orchestratorRoutes } from '../orchestrators/routes.ts';
import { loadPayPageBuild } from '../pay-page/assets.ts';
import { ensurePayPageClientId } from '../pay-page/client-id.ts';
import { payPageRoutes } from '../pay-page/routes.ts';
import { payPagePath } from '../pay-page/shell.ts';
import { SHARED_SCHEMAS } from '../payments/schemas.ts';
import { paymentSearchRoutes } from '../payments-search/routes.ts';
import { createMulticallParents } from '../payouts/multicall/parents.ts';
import { MULTICALL_SCHEMAS } from '../payouts/multicall/schemas.ts';
import type { RelayerHealth } from '../payouts/recurring/relayer-health.ts';
import { payoutRoutes } from '../payouts/routes.ts';
import { requestRoutes } from '../requests/routes.ts';
import { sandboxCommerceOperator } from '../sandbox/addresses.ts';
import type { Eip1193Provider } from '../sandbox/chain.ts';
import { sandboxRoutes } from '../sandbox/routes.ts';
import { securePaymentRoutes } from '../secure-payments/routes.ts';
import { v1Routes } from '../v1/routes.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import { installAdmission } from './admission.ts';
import { installCors } from './cors.ts';
import { installAuth, installAuthGate } from './credentials.ts';
import {
  clientErrorHandler,
  installErrorHandling,
  installHttpGuards,
  sendRawEnvelope,
} from './error-handler.ts';
import { healthRoutes } from './health.ts';
import { installInputGuard } from './input-guard.ts';
import { installOpenApi } from './openapi.ts';
import { installFailedCredentialLimit, installRateLimit } from './rate-limit-hooks.ts';
import { REQUEST_ID_HEADER, requestId } from './request-id.ts';
import { lazyRequestLogger } from './request-logger.ts';
import { type RouteEntry, recordRoutes } from './route-table.ts';

export interface AppDeps {
  readonly config: Config;
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  readonly database: DatabaseHandle;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Per-caller request budgets (main.ts); absent in tests that do not exercise them. */
  readonly rateLimiter?: RateLimiter | undefined;
  /** Budgets other than the defaults (tests). */
  readonly rateLimits?: Partial<RateLimits> | undefined;
  /** Seals and opens webhook signing secrets (SECRET_KEY). */
  readonly secretBox: SecretBox;
  /** Called when deliveries were queued outside payment detection (tests, redeliveries). */
  readonly wakeDispatcher?: (() => void) | undefined;
  /**
   * The sandbox chain, when `npm start` runs one: its JSON-RPC is served at /sandbox/rpc (the
   * second chain's, when it runs, at /sandbox-b/rpc).
   */
  readonly sandbox?:
    | {
        readonly provider: Eip1193Provider;
        readonly second?: { readonly provider: Eip1193Provider } | null | undefined;
      }
    | undefined;
  /** The recurring executors' relayer checks, shown by `/readyz` (when this process runs them). */
  readonly relayerHealth?: (() => readonly RelayerHealth[]) | undefined;
  /** The networks' start check, shown by `/readyz` (main.ts runs it). */
  readonly networkReadiness?: (() => readonly NetworkReadiness[]) | undefined;
  /** Where the built pay page is (tests); dist/pay-page by default. */
  readonly payPageDir?: string | undefined;
  /** The process's routing aggregator, shared with its workers (made here otherwise). */
  readonly aggregator?: Aggregator | undefined;
}

const MAX_PARAM_LENGTH = 256;

/** Largest JSON body we parse (the biggest legitimate one is a batch of a few hundred items). */
const BODY_LIMIT_BYTES = 1_048_576;

/**
 * How long a commerce execute operation waits for its transaction's receipt before answering
 * it in flight (the status follows it from there).
 */
const COMMERCE_RECEIPT_TIMEOUT_MS = 30_000;

export interface BuiltApp {
  readonly app: App;
  readonly usage: UsageRecorder;
  readonly routes: readonly RouteEntry[];
}

/**
 * The HTTP application, fully wired but not listening: `main.ts` listens, tests use
 * `app.inject()`. Register extra routes (tests do) before calling `app.ready()`.
 */
export async function buildApp(deps: AppDeps): Promise<BuiltApp> {
  const app: App = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast only widens its generic parameter.
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: requestId,
    childLoggerFactory: lazyRequestLogger,
    // Behind a proxy, request.ip (the rate limits' key) must come from X-Forwarded-For.
    // Fastify takes all three forms; its overloads do not type-check the union, hence the cast.
    trustProxy: deps.config.trustProxy as boolean,
    bodyLimit: BODY_LIMIT_BYTES,
    ...validationOptions(),
    routerOptions: {
      ignoreTrailingSlash: true,
      // Destination ids run to ~120 characters in a path segment.
      maxParamLength: MAX_PARAM_LENGTH,
      onMaxParamLength: (_path, request, response) =>
        sendRawEnvelope(
          response,
          'uri_too_long',
          `Path segments are limited to ${MAX_PARAM_LENGTH} characters`,
          requestId(request),
        ),
    },
    frameworkErrors: (error, request, reply) => {
      reply.hijack();
      sendRawEnvelope(reply.raw, 'bad_url', error.message, request.id);
    },
    clientErrorHandler,
    // A request without Host reaches us (Node would refuse it with an empty body): see
    // installHttpGuards, which refuses it in the envelope.
    http: { requireHostHeader: false },
  }).withTypeProvider();

  const routes = recordRoutes(app);
  const db = deps.database.db;
  // The pay page calls the API with a client ID of its own; it must exist before the page does.
  const payPageClientId = await ensurePayPageClientId(db, deps.config.payUrl);
  const payPageBuild = await loadPayPageBuild(deps.payPageDir);
  const usage = createUsageRecorder({ db, clock: deps.clock, logger: deps.logger });
  const credentials = createCredentialCache({ clock: deps.clock });

  // The hooks every request runs are callback-style where they never wait: no promise each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  // While closing, answers end their keep-alive connection: Fastify closes only connections
  // idle at the moment it starts closing, and one busy then would otherwise hold the process
  // open until its keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  installErrorHandling(app);
  installHttpGuards(app);
  // First of the gates: a refused request costs no credential lookup.
  if (deps.config.admission) installAdmission(app, deps.config.admission);
  // Bodies are JSON: a text/plain body answers 415, as docs/errors.md says, instead of
  // reaching validation as a string.
  app.removeContentTypeParser('text/plain');
  installInputGuard(app);
  await app.register(cookie);
  // Before auth: an IP that keeps sending bad credentials is turned away before the lookup.
  // The configured budgets (RATE_LIMIT_*), with a caller's overrides (tests) on top.
  const limitOptions = { limits: { ...deps.config.rateLimits, ...deps.rateLimits } };
  if (deps.rateLimiter) installFailedCredentialLimit(app, deps.rateLimiter, limitOptions);
  installAuth(app, {
    db,
    usage,
    clock: deps.clock,
    credentials,
    cookieWriteOrigins: cookieWriteOrigins(deps.config),
  });
  // Between resolving the caller and refusing a bad one: the grant depends on the client ID,
  // and a browser must still be able to read a refusal (the dashboard's 401, say).
  await installCors(app, {
    routes,
    dashboardUrl: deps.config.dashboardUrl,
    payUrl: deps.config.payUrl,
  });
  installAuthGate(app);
  // After auth: a budget belongs to the caller the auth hook resolved.
  if (deps.rateLimiter) installRateLimit(app, deps.rateLimiter, limitOptions);
  await installOpenApi(app, deps.config);

  for (const schema of [...SHARED_SCHEMAS, ...MULTICALL_SCHEMAS]) app.addSchema(schema);
  healthRoutes(app, {
    database: deps.database,
    relayerHealth: deps.relayerHealth,
    networks: deps.networkReadiness,
  });
  currencyRoutes(app, { chains: deps.chains });
  orchestratorRoutes(app, {
    db,
    clock: deps.clock,
    secretBox: deps.secretBox,
    webhooks: deps.config.webhooks,
    chains: deps.chains,
    payUrl: deps.config.payUrl,
    brandingOf: (orchestratorId) => resolveOrchestratorBranding(db, orchestratorId),
  });
  feeRoutes(app, {
    db,
    clock: deps.clock,
    chains: deps.chains,
    protocolFee: deps.config.protocolFee,
  });
  brandingRoutes(app, {
    db,
    clock: deps.clock,
    dir: deps.config.brandingDir,
    basePath: payPagePath(deps.config.payUrl),
  });
  const chainDeps = { db, clock: deps.clock, chains: deps.chains, clients: deps.clients };
  // One aggregator per process (main.ts hands the workers' bridge tracker the same): every
  // cross-chain call shares its circuit breaker, and every
  // route verb the one quoter (its cache of routes and of steps handed out).
  const crossChainRoutes = createRouteQuoter({
    aggregator: deps.aggregator ?? createAggregator({ config: deps.config.crosschain }),
    clock: deps.clock,
  });
  destinationRoutes(app, chainDeps);
  payeeDestinationV1Routes(app, chainDeps);
  requestRoutes(app, { ...chainDeps, routes: crossChainRoutes });
  v1Routes(app, { ...chainDeps, routes: crossChainRoutes });
  payoutRoutes(app, {
    ...chainDeps,
    payUrl: deps.config.payUrl,
    protocolFee: deps.config.protocolFee,
    maxChildren: deps.config.multicallMaxChildren,
  });
  const tronRpc = deps.config.networks.tron.rpcUrl;
  securePaymentRoutes(app, {
    ...chainDeps,
    payUrl: deps.config.payUrl,
    protocolFee: deps.config.protocolFee,
    parents: createMulticallParents({ ...chainDeps, routes: crossChainRoutes }),
    paymentOptions: createPaymentOptionsReader({
      chains: deps.chains,
      clients: deps.clients,
      timeoutMs: deps.config.paymentOptionsTimeoutMs,
    }),
    routes: crossChainRoutes,
    tronNode: tronRpc
      ? createTronGridClient({
          baseUrl: tronRpc,
          ...(deps.config.tronApiKey && { apiKey: deps.config.tronApiKey }),
        })
      : null,
    rateLimiter: deps.rateLimiter,
    wakeDispatcher: deps.wakeDispatcher,
  });
  commerceRoutes(app, {
    ...chainDeps,
    chainTime: createChainTime(chainDeps),
    operator: serverOperator(
      deps.config.commerceOperatorKey,
      deps.config.sandbox
        ? { isSandbox: isSandboxNetwork, key: sandboxCommerceOperator().privateKey }
        : null,
    ),
    sharedOperatorKey: deps.config.commerceOperatorKey !== null,
    sends: createSendQueue(deps.database),
    payUrl: deps.config.payUrl,
    receiptTimeoutMs: COMMERCE_RECEIPT_TIMEOUT_MS,
  });
  paymentSearchRoutes(app, { db, chains: deps.chains });
  journeyRoutes(app, { db, clock: deps.clock, chains: deps.chains });
  authRoutes(app, { db, clock: deps.clock, config: deps.config, clients: deps.clients });
  clientIdRoutes(app, { db, clock: deps.clock });
  apiKeyRoutes(app, { db, clock: deps.clock });
  webhookRoutes(app, {
    db,
    clock: deps.clock,
    secretBox: deps.secretBox,
    config: deps.config.webhooks,
    ...(deps.wakeDispatcher && { wake: deps.wakeDispatcher }),
  });
  if (deps.sandbox) sandboxRoutes(app, deps.sandbox);
  payPageRoutes(app, {
    config: deps.config,
    chains: deps.chains,
    clientId: payPageClientId,
    build: payPageBuild,
  });

  app.addHook('onClose', async () => {
    await usage.flush();
  });
  return { app, usage, routes };
}
