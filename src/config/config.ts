import { isAbsolute, join, resolve } from 'node:path';
import { CONTRACT_KEYS } from '../chains/contracts.ts';
import type { NetworkConfig, NetworkConfigs } from '../chains/network-config.ts';
import { NETWORKS, networkEnvSuffix, type PaymentNetworkId } from '../chains/networks.ts';
import {
  type AdmissionLimits,
  DEFAULT_RATE_LIMITS,
  PGLITE_ADMISSION,
  type RateLimits,
} from '../http/budgets.ts';
import {
  type ComplianceConfig,
  type DataKeysConfig,
  parseCompliance,
  parseDataKeys,
} from './compliance.ts';
import { type CrosschainConfig, parseCrosschain } from './crosschain.ts';
import { type MetricsConfig, parseMetrics } from './metrics.ts';
import { type OfframpConfig, parseOfframp } from './offramp.ts';
import { type ProtocolFeeConfig, parseProtocolFee } from './protocol-fee.ts';
import {
  ConfigError,
  type Env,
  nonEmpty,
  type PrivateKey,
  parseAddressMap,
  parseBaseUrl,
  parseBoolean,
  parseExplorerTemplate,
  parseFrameAncestors,
  parseInteger,
  parsePort,
  parsePrivateKey,
  parseRelayerKey,
  parseSecretKey,
  parseTrustProxy,
  parseUrl,
} from './readers.ts';
import { parseScreening, type ScreeningConfig } from './screening.ts';
import { parseShutdown, type ShutdownConfig } from './shutdown.ts';

export { ConfigError, type PrivateKey } from './readers.ts';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Every setting the service reads, parsed once from the environment. Nothing else in the code
 * reads `process.env`; entry points call `parseConfig(process.env)` and pass the result down.
 */

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Public base URL of the request API (`/v2`). No trailing slash. */
  readonly baseUrl: string;
  /** Public base URL of the auth API (`/v1`). No trailing slash. */
  readonly authUrl: string;
  /** Public base URL of the hosted pay page. No trailing slash. */
  readonly payUrl: string;
  /**
   * Who may frame the pay page (`PAY_FRAME_ANCESTORS`), as the CSP `frame-ancestors` source
   * list: `'none'` (default), `'self'`, or origins (`'self'` may be among them).
   */
  readonly payFrameAncestors: string;
  /**
   * Where the dashboard is served (`DASHBOARD_URL`, default `/dashboard` at the pay page's
   * origin): its origin may call the auth API and session routes from a browser, cookie
   * included. This process serves it there unless its path is empty or the pay page's.
   */
  readonly dashboardUrl: string;
  /** Postgres connection string; null means the embedded PGlite database in `dataDir`. */
  readonly databaseUrl: string | null;
  readonly redisUrl: string | null;
  /** Absolute path of the folder for the embedded database and the generated secret key. */
  readonly dataDir: string;
  /**
   * The operator's branding folder (`BRANDING_DIR`, default `<dataDir>/branding`): logos and
   * legal pages, served read-only beside the pay page under `/branding/`.
   */
  readonly brandingDir: string;
  readonly logLevel: LogLevel;
  /** 32-byte key that encrypts secrets at rest; null means "read or create `<dataDir>/secret.key`". */
  readonly secretKey: Buffer | null;
  readonly networks: NetworkConfigs;
  /** Run the local sandbox chain (`SANDBOX`; on unless NODE_ENV=production). */
  readonly sandbox: boolean;
  /**
   * `SANDBOX_IDLE_BLOCK_MS`: the sandbox chain mines a block after this long without one, so
   * its time moves while nobody transacts; 0 turns it off; unset, the sandbox's own default.
   */
  readonly sandboxIdleBlockMs: number | undefined;
  /** The most children a same-chain or Tron multicall payout takes (`MULTICALL_MAX_CHILDREN`). */
  readonly multicallMaxChildren: number;
  readonly webhooks: WebhookConfig;
  readonly workers: WorkerConfig;
  /** Sent as TRON-PRO-API-KEY to the Tron full node (TronGrid) at RPC_URL_TRON. */
  readonly tronApiKey: string | null;
  /**
   * The key of the account that triggers recurring payouts (`RECURRING_RELAYER_KEY`), null when
   * unset; `relayerAccount` (src/payouts/recurring/relayer.ts) makes the signer. Held so that
   * logging or serialising the configuration shows no secret.
   */
  readonly recurringRelayerKey: PrivateKey | null;
  /**
   * The server's commerce operator (`COMMERCE_OPERATOR_KEY`): the key that signs commerce
   * payments' captures, voids and refunds for client IDs without an operator wallet of their
   * own; null when unset. Shown as "[secret]".
   */
  readonly commerceOperatorKey: PrivateKey | null;
  /** Fastify's trustProxy (`TRUST_PROXY`): false, true, a hop count, or addresses/CIDRs. */
  readonly trustProxy: boolean | number | string;
  /** Requests per minute by kind of caller (`RATE_LIMIT_*`, defaults `DEFAULT_RATE_LIMITS`). */
  readonly rateLimits: RateLimits;
  /**
   * Admission control (`ADMISSION_MAX_IN_FLIGHT`, `_MAX_QUEUE`, `_MAX_WAIT_MS`): on by default
   * with the embedded database, off with Postgres unless set; null is off.
   */
  readonly admission: AdmissionLimits | null;
  /** The operator's fee on every payment (`PROTOCOL_FEE_*`); null: none (the default). */
  readonly protocolFee: ProtocolFeeConfig | null;
  /**
   * How long `paymentOptions` waits for one chain's balances (`PAYMENT_OPTIONS_TIMEOUT_MS`,
   * default 1,500): a chain that has not answered by then is left out of the answer.
   */
  readonly paymentOptionsTimeoutMs: number;
  /** The routing aggregator of cross-chain payments (`LIFI_*`). */
  readonly crosschain: CrosschainConfig;
  /** The compliance provider of payers (src/config/compliance.ts). */
  readonly compliance: ComplianceConfig;
  /** Keys that seal personal data besides SECRET_KEY, and the current one. */
  readonly dataKeys: DataKeysConfig;
  /** The screening providers of payer wallets (`SCREENING_*`). */
  readonly screening: ScreeningConfig;
  /** The off-ramp provider of crypto-to-fiat payments (`OFFRAMP_*`). */
  readonly offramp: OfframpConfig;
  /** `METRICS_*`: where `GET /metrics` is served; null: nowhere (src/config/metrics.ts). */
  readonly metrics: MetricsConfig | null;
  readonly shutdown: ShutdownConfig;
}

/** The variable that sets each budget. */
export const RATE_LIMIT_ENV: Readonly<Record<keyof RateLimits, string>> = {
  clientId: 'RATE_LIMIT_CLIENT_ID',
  apiKey: 'RATE_LIMIT_API_KEY',
  session: 'RATE_LIMIT_SESSION',
  orchestratorKey: 'RATE_LIMIT_ORCHESTRATOR_KEY',
  authEndpoint: 'RATE_LIMIT_AUTH',
  failedCredentials: 'RATE_LIMIT_FAILED_CREDENTIALS',
};
/** The most any budget may be set to: a million requests a minute. */
const MAX_RATE_LIMIT = 1_000_000;

export interface WebhookConfig {
  /** Accept http://localhost and private-network receivers (`ALLOW_LOCAL_WEBHOOKS`). */
  readonly allowLocal: boolean;
  /**
   * The first delay after the reference's three retries (1 s, 5 s, 15 s); each later one
   * doubles, with jitter, up to `retryMaxMs`. An endpoint's retry policy may replace each.
   */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** How long after the event retries go on (the reference's three always happen). */
  readonly retryForMs: number;
  /** Per attempt. */
  readonly timeoutMs: number;
}

interface WorkerConfig {
  /** Run the indexers and the webhook dispatcher in this process (`WORKERS`). */
  readonly enabled: boolean;
  readonly indexerPollMs: number;
  readonly dispatcherPollMs: number;
  /** How often the recurring payout executor looks for due payments (`RECURRING_POLL_MS`). */
  readonly recurringPollMs: number;
  /** How often the Safe tracker reads the chain for tracked Safe transactions (`SAFE_TRACKER_POLL_MS`). */
  readonly safeTrackerPollMs: number;
  /**
   * How often the bridge tracker asks the routing aggregator where payers' cross-chain
   * transfers stand (`BRIDGE_TRACKER_POLL_MS`).
   */
  readonly bridgeTrackerPollMs: number;
  /**
   * How long after the aggregator reports a transfer delivered detection has to see its
   * payment before it is settled on the aggregator's word (`BRIDGE_SETTLE_AFTER_MS`).
   */
  readonly bridgeSettleAfterMs: number;
  /**
   * How often the commerce reconciler reads the chain for execute operations left in flight
   * (`COMMERCE_RECONCILE_POLL_MS`).
   */
  readonly commerceReconcilePollMs: number;
  /**
   * How long an execute operation may stay unsent, or its transaction unknown to the node,
   * before the reconciler may end it (`COMMERCE_RECONCILE_GRACE_MS`).
   */
  readonly commerceReconcileGraceMs: number;
}

const DEFAULT_PORT = 8080;
const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_DATA_DIR = './.payreq';
const DAY_MS = 24 * 60 * 60_000;

export function parseConfig(env: Env, cwd: string = process.cwd()): Config {
  const port = parsePort(env, 'PORT') ?? DEFAULT_PORT;
  const host = nonEmpty(env, 'HOST') ?? DEFAULT_HOST;
  const baseUrl = parseBaseUrl(env, 'BASE_URL') ?? `http://localhost:${port}`;
  const payUrl = parseBaseUrl(env, 'PAY_URL') ?? baseUrl;
  const dataDirRaw = nonEmpty(env, 'DATA_DIR') ?? DEFAULT_DATA_DIR;
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw);
  const brandingDirRaw = nonEmpty(env, 'BRANDING_DIR');

  rejectUnknownNetworkVariables(env);

  const networks = Object.fromEntries(
    NETWORKS.map((network) => {
      const suffix = networkEnvSuffix(network.id);
      const rpcUrl = parseUrl(env, `RPC_URL_${suffix}`, ['http:', 'https:', 'ws:', 'wss:']);
      const confirmations =
        parseInteger(env, `CONFIRMATIONS_${suffix}`, 0, 10_000) ?? network.defaultConfirmations;
      const contracts = parseAddressMap(env, `CONTRACTS_${suffix}`, CONTRACT_KEYS);
      const tokens = parseAddressMap(env, `TOKENS_${suffix}`, null);
      const explorerTxUrl = parseExplorerTemplate(env, `EXPLORER_TX_URL_${suffix}`);
      return [
        network.id,
        {
          rpcUrl,
          confirmations,
          contracts,
          tokens,
          ...(explorerTxUrl !== undefined && { explorerTxUrl }),
        },
      ];
    }),
  ) as Record<PaymentNetworkId, NetworkConfig>;
  const production = env.NODE_ENV === 'production';
  const databaseUrl = parseUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);

  return {
    port,
    host,
    baseUrl,
    authUrl: parseBaseUrl(env, 'AUTH_URL') ?? baseUrl,
    payUrl,
    payFrameAncestors: parseFrameAncestors(env),
    dashboardUrl: parseBaseUrl(env, 'DASHBOARD_URL') ?? `${new URL(payUrl).origin}/dashboard`,
    databaseUrl,
    redisUrl: parseUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    dataDir,
    brandingDir:
      brandingDirRaw === undefined
        ? join(dataDir, 'branding')
        : isAbsolute(brandingDirRaw)
          ? brandingDirRaw
          : resolve(cwd, brandingDirRaw),
    logLevel: parseLogLevel(env),
    secretKey: parseSecretKey(env),
    networks,
    sandbox: parseBoolean(env, 'SANDBOX') ?? !production,
    sandboxIdleBlockMs: parseInteger(env, 'SANDBOX_IDLE_BLOCK_MS', 0, 3_600_000),
    multicallMaxChildren: parseInteger(env, 'MULTICALL_MAX_CHILDREN', 2, 1000) ?? 150,
    webhooks: {
      allowLocal: parseBoolean(env, 'ALLOW_LOCAL_WEBHOOKS') ?? !production,
      retryBaseMs: parseInteger(env, 'WEBHOOK_RETRY_BASE_MS', 1, DAY_MS) ?? 30_000,
      retryMaxMs: parseInteger(env, 'WEBHOOK_RETRY_MAX_MS', 1, DAY_MS) ?? 6 * 60 * 60_000,
      retryForMs: parseInteger(env, 'WEBHOOK_RETRY_FOR_MS', 0, 30 * DAY_MS) ?? 3 * DAY_MS,
      timeoutMs: parseInteger(env, 'WEBHOOK_TIMEOUT_MS', 100, 60_000) ?? 5_000,
    },
    tronApiKey: nonEmpty(env, 'TRON_API_KEY') ?? null,
    recurringRelayerKey: parseRelayerKey(env),
    commerceOperatorKey: parsePrivateKey(env, 'COMMERCE_OPERATOR_KEY'),
    trustProxy: parseTrustProxy(env),
    rateLimits: Object.fromEntries(
      Object.entries(RATE_LIMIT_ENV).map(([kind, name]) => [
        kind,
        parseInteger(env, name, 1, MAX_RATE_LIMIT) ?? DEFAULT_RATE_LIMITS[kind as keyof RateLimits],
      ]),
    ) as unknown as RateLimits,
    admission: parseAdmission(env, databaseUrl === null),
    protocolFee: parseProtocolFee(env),
    paymentOptionsTimeoutMs: parseInteger(env, 'PAYMENT_OPTIONS_TIMEOUT_MS', 10, 60_000) ?? 1_500,
    crosschain: parseCrosschain(env),
    compliance: parseCompliance(env),
    dataKeys: parseDataKeys(env),
    screening: parseScreening(env),
    offramp: parseOfframp(env),
    shutdown: parseShutdown(env),
    metrics: parseMetrics(env),
    workers: {
      enabled: parseBoolean(env, 'WORKERS') ?? true,
      indexerPollMs: parseInteger(env, 'INDEXER_POLL_MS', 10, 600_000) ?? 4_000,
      dispatcherPollMs: parseInteger(env, 'DISPATCHER_POLL_MS', 10, 600_000) ?? 1_000,
      recurringPollMs: parseInteger(env, 'RECURRING_POLL_MS', 10, 600_000) ?? 10_000,
      safeTrackerPollMs: parseInteger(env, 'SAFE_TRACKER_POLL_MS', 10, 600_000) ?? 5_000,
      bridgeTrackerPollMs: parseInteger(env, 'BRIDGE_TRACKER_POLL_MS', 10, 600_000) ?? 15_000,
      bridgeSettleAfterMs:
        parseInteger(env, 'BRIDGE_SETTLE_AFTER_MS', 0, 24 * 60 * 60_000) ?? 10 * 60_000,
      commerceReconcilePollMs:
        parseInteger(env, 'COMMERCE_RECONCILE_POLL_MS', 10, 600_000) ?? 30_000,
      commerceReconcileGraceMs:
        parseInteger(env, 'COMMERCE_RECONCILE_GRACE_MS', 0, 24 * 60 * 60_000) ?? 10 * 60_000,
    },
  };
}

/** ADMISSION_MAX_IN_FLIGHT=0 turns the gate off; the other two need it on. */
function parseAdmission(env: Env, embedded: boolean): AdmissionLimits | null {
  const maxInFlight = parseInteger(env, 'ADMISSION_MAX_IN_FLIGHT', 0, 100_000);
  if (maxInFlight === 0 || (maxInFlight === undefined && !embedded)) return null;
  return {
    maxInFlight: maxInFlight ?? PGLITE_ADMISSION.maxInFlight,
    maxQueue: parseInteger(env, 'ADMISSION_MAX_QUEUE', 0, 100_000) ?? PGLITE_ADMISSION.maxQueue,
    maxWaitMs: parseInteger(env, 'ADMISSION_MAX_WAIT_MS', 0, 60_000) ?? PGLITE_ADMISSION.maxWaitMs,
  };
}

function parseLogLevel(env: Env): LogLevel {
  const raw = nonEmpty(env, 'LOG_LEVEL')?.toLowerCase();
  if (raw === undefined) return 'info';
  const level = LOG_LEVELS.find((l) => l === raw);
  if (!level) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  return level;
}

/** A typo such as `RPC_URL_POLYGON` would otherwise be ignored silently. */
function rejectUnknownNetworkVariables(env: Env): void {
  const known = new Set(NETWORKS.map((n) => networkEnvSuffix(n.id)));
  for (const name of Object.keys(env)) {
    const match = /^(RPC_URL|CONFIRMATIONS|CONTRACTS|TOKENS|EXPLORER_TX_URL)_(.+)$/.exec(name);
    if (match?.[2] !== undefined && !known.has(match[2])) {
      throw new ConfigError(
        name,
        `names an unknown network (known: ${[...known].map((k) => `${match[1]}_${k}`).join(', ')})`,
      );
    }
  }
}
