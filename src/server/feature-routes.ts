import { apiKeyRoutes, authRoutes, clientIdRoutes } from '../auth/routes.ts';
import { resolveOrchestratorBranding } from '../branding/resolve.ts';
import { brandingRoutes } from '../branding/routes.ts';
import { isSandboxNetwork } from '../chains/networks.ts';
import { createTronGridClient } from '../chains/tron-grid.ts';
import { createChainTime } from '../commerce/chain-time.ts';
import { serverOperator } from '../commerce/operator.ts';
import { commerceRoutes } from '../commerce/routes.ts';
import { createSendQueue } from '../commerce/send-queue.ts';
import { createAggregator } from '../crosschain/aggregator.ts';
import { createPaymentOptionsReader } from '../crosschain/payment-options.ts';
import { createRouteQuoter } from '../crosschain/quote-route.ts';
import { currencyRoutes } from '../currencies/routes.ts';
import { dashboardApiRoutes } from '../dashboard/api-routes.ts';
import { dashboardRoutes } from '../dashboard/routes.ts';
import { destinationRoutes } from '../destinations/routes.ts';
import { payeeDestinationV1Routes } from '../destinations/v1-routes.ts';
import { feeRoutes } from '../fees/routes.ts';
import type { App } from '../http/types.ts';
import type { LoadedBuild } from '../http/web-assets.ts';
import { journeyRoutes } from '../journeys/routes.ts';
import { cryptoToFiatPayee, offrampRoutes } from '../offramp/routes.ts';
import { orchestratorRoutes } from '../orchestrators/routes.ts';
import { payPageRoutes } from '../pay-page/routes.ts';
import { payPagePath } from '../pay-page/shell.ts';
import { createComplianceProvider } from '../payer/provider.ts';
import { payerRoutes } from '../payer/routes.ts';
import { paymentSearchRoutes } from '../payments-search/routes.ts';
import { createMulticallParents } from '../payouts/multicall/parents.ts';
import { payoutRoutes } from '../payouts/routes.ts';
import { requestRoutes } from '../requests/routes.ts';
import { sandboxCommerceOperator } from '../sandbox/addresses.ts';
import { sandboxRoutes } from '../sandbox/routes.ts';
import { createScreeningService } from '../screening/screen.ts';
import { securePaymentRoutes } from '../secure-payments/routes.ts';
import { v1Routes } from '../v1/routes.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import type { AppDeps } from './app-deps.ts';
import { healthRoutes } from './health.ts';

/**
 * How long a commerce execute operation waits for its transaction's receipt before answering
 * it in flight (the status follows it from there).
 */
const COMMERCE_RECEIPT_TIMEOUT_MS = 30_000;

/**
 * What the server serves: every feature's routes, each handed the parts of the process it
 * needs. `buildApp` calls it once the hooks every request runs are installed.
 */
export function registerFeatureRoutes(
  app: App,
  deps: AppDeps,
  pages: {
    readonly payPage: { readonly clientId: string; readonly build: LoadedBuild };
    readonly dashboard: LoadedBuild;
  },
): void {
  const { payPage } = pages;
  const db = deps.database.db;
  healthRoutes(app, {
    database: deps.database,
    relayerHealth: deps.relayerHealth,
    networks: deps.networkReadiness,
    stopping: deps.stopping,
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
  // One screening service: a link's payer rules hold on its requests' own routes too.
  const screening = createScreeningService(deps.config.screening);
  const payerRules = { screening, wakeDispatcher: deps.wakeDispatcher };
  requestRoutes(app, {
    ...chainDeps,
    routes: crossChainRoutes,
    ...payerRules,
    cryptoToFiat: cryptoToFiatPayee({ db, chains: deps.chains, config: deps.config.offramp }),
  });
  offrampRoutes(app, { db, chains: deps.chains, clock: deps.clock, config: deps.config.offramp });
  v1Routes(app, { ...chainDeps, routes: crossChainRoutes, ...payerRules });
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
    screening,
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
  dashboardApiRoutes(app, { db, clock: deps.clock, chains: deps.chains });
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
  const compliance = deps.config.compliance;
  payerRoutes(app, {
    db,
    clock: deps.clock,
    keys: deps.keyRing,
    provider:
      compliance.url === null
        ? null
        : createComplianceProvider({ ...compliance, url: compliance.url }),
    webhookSecret: compliance.webhookSecret?.reveal() ?? null,
    wake: deps.wakeDispatcher,
  });
  if (deps.sandbox) sandboxRoutes(app, deps.sandbox);
  payPageRoutes(app, {
    config: deps.config,
    chains: deps.chains,
    clientId: payPage.clientId,
    build: payPage.build,
  });
  dashboardRoutes(app, { config: deps.config, chains: deps.chains, build: pages.dashboard });
}
