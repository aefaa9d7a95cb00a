import { isAbsolute, resolve } from 'node:path';
import { normaliseAllowedOrigin } from './auth/origins.ts';
import { CONTRACT_KEYS, type ContractSet } from './chains/contracts.ts';
import { NETWORKS, networkEnvSuffix, type PaymentNetworkId } from './chains/networks.ts';
import {
  type AdmissionLimits,
  DEFAULT_RATE_LIMITS,
  PGLITE_ADMISSION,
  type RateLimits,
} from './http/budgets.ts';

/**
 * Every setting the service reads, parsed once from the environment. Nothing else in the code
 * reads `process.env`; entry points call `parseConfig(process.env)` and pass the result down.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface NetworkConfig {
  /** JSON-RPC (EVM) or full-node HTTP (Tron) endpoint; null when the network has none configured. */
  readonly rpcUrl: string | null;
  readonly confirmations: number;
  /** Contract addresses that replace the deployed ones (`CONTRACTS_<NETWORK>`, JSON). */
  readonly contracts: Partial<ContractSet>;
  /** Token addresses by symbol that replace the known ones (`TOKENS_<NETWORK>`, JSON). */
  readonly tokens: Readonly<Record<string, string>>;
  /**
   * `EXPLORER_TX_URL_<NETWORK>`: the transaction-page template (`{txHash}` stands for the hash)
   * that webhooks link to; null turns the link off (`none`), undefined keeps the known one.
   */
  readonly explorerTxUrl?: string | null;
}

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
   * Where the dashboard is served (`DASHBOARD_URL`, default the hosted pages' `PAY_URL`): its
   * origin may call the auth API and session routes from a browser, cookie included.
   */
  readonly dashboardUrl: string;
  /** Postgres connection string; null means the embedded PGlite database in `dataDir`. */
  readonly databaseUrl: string | null;
  readonly redisUrl: string | null;
  /** Absolute path of the folder for the embedded database and the generated secret key. */
  readonly dataDir: string;
  readonly logLevel: LogLevel;
  /** 32-byte key that encrypts secrets at rest; null means "read or create `<dataDir>/secret.key`". */
  readonly secretKey: Buffer | null;
  readonly networks: Readonly<Record<PaymentNetworkId, NetworkConfig>>;
  /** Run the local sandbox chain (`SANDBOX`; on unless NODE_ENV=production). */
  readonly sandbox: boolean;
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
  /** Fastify's trustProxy (`TRUST_PROXY`): false, true, a hop count, or addresses/CIDRs. */
  readonly trustProxy: boolean | number | string;
  /** Requests per minute by kind of caller (`RATE_LIMIT_*`, defaults `DEFAULT_RATE_LIMITS`). */
  readonly rateLimits: RateLimits;
  /**
   * Admission control (`ADMISSION_MAX_IN_FLIGHT`, `_MAX_QUEUE`, `_MAX_WAIT_MS`): on by default
   * with the embedded database, off with Postgres unless set; null is off.
   */
  readonly admission: AdmissionLimits | null;
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
  /** First retry delay; each later one doubles, with jitter, up to `retryMaxMs`. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** How long a delivery keeps being retried before it is marked failed. */
  readonly retryForMs: number;
  /** Per attempt. */
  readonly timeoutMs: number;
}

export interface WorkerConfig {
  /** Run the indexers and the webhook dispatcher in this process (`WORKERS`). */
  readonly enabled: boolean;
  readonly indexerPollMs: number;
  readonly dispatcherPollMs: number;
  /** How often the recurring payout executor looks for due payments (`RECURRING_POLL_MS`). */
  readonly recurringPollMs: number;
}

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable} ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

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
    dashboardUrl: parseBaseUrl(env, 'DASHBOARD_URL') ?? payUrl,
    databaseUrl,
    redisUrl: parseUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    dataDir: isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw),
    logLevel: parseLogLevel(env),
    secretKey: parseSecretKey(env),
    networks,
    sandbox: parseBoolean(env, 'SANDBOX') ?? !production,
    multicallMaxChildren: parseInteger(env, 'MULTICALL_MAX_CHILDREN', 2, 1000) ?? 150,
    webhooks: {
      allowLocal: parseBoolean(env, 'ALLOW_LOCAL_WEBHOOKS') ?? !production,
      retryBaseMs: parseInteger(env, 'WEBHOOK_RETRY_BASE_MS', 1, DAY_MS) ?? 10_000,
      retryMaxMs: parseInteger(env, 'WEBHOOK_RETRY_MAX_MS', 1, DAY_MS) ?? 6 * 60 * 60_000,
      retryForMs: parseInteger(env, 'WEBHOOK_RETRY_FOR_MS', 0, 30 * DAY_MS) ?? 3 * DAY_MS,
      timeoutMs: parseInteger(env, 'WEBHOOK_TIMEOUT_MS', 100, 60_000) ?? 5_000,
    },
    tronApiKey: nonEmpty(env, 'TRON_API_KEY') ?? null,
    recurringRelayerKey: parseRelayerKey(env),
    trustProxy: parseTrustProxy(env),
    rateLimits: Object.fromEntries(
      Object.entries(RATE_LIMIT_ENV).map(([kind, name]) => [
        kind,
        parseInteger(env, name, 1, MAX_RATE_LIMIT) ?? DEFAULT_RATE_LIMITS[kind as keyof RateLimits],
      ]),
    ) as unknown as RateLimits,
    admission: parseAdmission(env, databaseUrl === null),
    workers: {
      enabled: parseBoolean(env, 'WORKERS') ?? true,
      indexerPollMs: parseInteger(env, 'INDEXER_POLL_MS', 10, 600_000) ?? 4_000,
      dispatcherPollMs: parseInteger(env, 'DISPATCHER_POLL_MS', 10, 600_000) ?? 1_000,
      recurringPollMs: parseInteger(env, 'RECURRING_POLL_MS', 10, 600_000) ?? 10_000,
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

function nonEmpty(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function parseInteger(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function parseTrustProxy(env: Env): boolean | number | string {
  const raw = nonEmpty(env, 'TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return parseInteger(env, 'TRUST_PROXY', 0, 100) ?? false;
  if (!/^[0-9a-fA-F.:/,\s]+$/.test(raw)) {
    throw new ConfigError(
      'TRUST_PROXY',
      'must be true, false, a hop count, or comma-separated addresses/CIDRs',
    );
  }
  return raw;
}

function parseBoolean(env: Env, name: string): boolean | undefined {
  const raw = nonEmpty(env, name)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, 'must be true or false');
}

/** A JSON object of addresses; with `keys`, only those keys. Addresses are checked by their users. */
function parseAddressMap<K extends string>(
  env: Env,
  name: string,
  keys: readonly K[] | null,
): Partial<Record<K, string>> {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigError(name, 'must be a JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(name, 'must be a JSON object');
  }
  for (const [key, address] of Object.entries(value)) {
    if (keys !== null && !keys.includes(key as K)) {
      throw new ConfigError(name, `has unknown key ${key} (known: ${keys.join(', ')})`);
    }
    if (
      typeof address !== 'string' ||
      !/^(0x[0-9a-fA-F]{40}|T[1-9A-HJ-NP-Za-km-z]{33})$/.test(address)
    ) {
      throw new ConfigError(name, `has an invalid address for ${key}`);
    }
  }
  return value as Partial<Record<K, string>>;
}

function parsePort(env: Env, name: string): number | undefined {
  return parseInteger(env, name, 0, 65_535);
}

function parseUrl(env: Env, name: string, protocols: readonly string[]): string | null {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must use one of ${protocols.join(' ')} (got ${url.protocol})`);
  }
  return raw;
}

/** Public base URLs: http(s), no query or fragment, stored without a trailing slash. */
function parseBaseUrl(env: Env, name: string): string | undefined {
  const raw = parseUrl(env, name, ['http:', 'https:']);
  if (raw === null) return undefined;
  const url = new URL(raw);
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigError(name, 'must not carry a query or fragment');
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * `none`, or `self` and origins separated by spaces (https; http only for the loopback hosts,
 * as for a client ID's allowed domains), into a CSP source list. The CSP keywords are accepted
 * quoted too.
 */
function parseFrameAncestors(env: Env): string {
  const name = 'PAY_FRAME_ANCESTORS';
  const raw = nonEmpty(env, name);
  if (raw === undefined) return "'none'";
  const tokens = raw.split(/\s+/).map((token) => token.replace(/^'(none|self)'$/, '$1'));
  if (tokens.includes('none')) {
    if (tokens.length > 1) throw new ConfigError(name, 'must be none alone, or self and origins');
    return "'none'";
  }
  const sources = tokens.map((token) => {
    if (token === 'self') return "'self'";
    // The URL parser lets `;` and `,` through in a host: here they would end the CSP directive.
    const check = /^[A-Za-z0-9.:/[\]-]+$/.test(token)
      ? normaliseAllowedOrigin(token)
      : { ok: false as const, reason: 'must be an origin such as https://shop.example' };
    if (!check.ok) {
      throw new ConfigError(
        name,
        `must be none, self, or origins separated by spaces (${token}: ${check.reason})`,
      );
    }
    return check.origin;
  });
  return [...new Set(sources)].join(' ');
}

function parseLogLevel(env: Env): LogLevel {
  const raw = nonEmpty(env, 'LOG_LEVEL')?.toLowerCase();
  if (raw === undefined) return 'info';
  const level = LOG_LEVELS.find((l) => l === raw);
  if (!level) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  return level;
}

/** 32 bytes, as 64 hex digits or base64. The value itself never appears in an error. */
function parseSecretKey(env: Env): Buffer | null {
  const raw = nonEmpty(env, 'SECRET_KEY');
  if (raw === undefined) return null;
  const key = decodeSecretKey(raw);
  if (!key) throw new ConfigError('SECRET_KEY', 'must be 32 bytes as 64 hex digits or base64');
  return key;
}

/** The order of secp256k1: a private key is from 1 to one below it. */
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * A private key that shows nothing when logged, inspected or serialised; `reveal()` gives it
 * to the one place that signs. Configuration holds the key, not a signer, so that reading it
 * loads no cryptography (the CLI parses the configuration for every command).
 */
export class PrivateKey {
  readonly #hex: `0x${string}`;
  constructor(hex: `0x${string}`) {
    this.#hex = hex;
  }
  reveal(): `0x${string}` {
    return this.#hex;
  }
  toJSON(): string {
    return '[secret]';
  }
  toString(): string {
    return '[secret]';
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return '[secret]';
  }
}

/** A secp256k1 private key, 64 hex digits (0x optional). The value never appears in an error. */
function parseRelayerKey(env: Env): PrivateKey | null {
  const name = 'RECURRING_RELAYER_KEY';
  const raw = nonEmpty(env, name);
  if (raw === undefined) return null;
  const hex = raw.replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new ConfigError(name, 'must be a private key: 32 bytes as 64 hex digits');
  }
  const value = BigInt(`0x${hex}`);
  if (value === 0n || value >= SECP256K1_ORDER) {
    throw new ConfigError(name, 'is not a valid secp256k1 private key');
  }
  return new PrivateKey(`0x${hex.toLowerCase()}`);
}

export function decodeSecretKey(raw: string): Buffer | null {
  const text = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const key = Buffer.from(text, 'base64');
    if (key.length === 32) return key;
  }
  return null;
}

/** A typo such as `RPC_URL_POLYGON` would otherwise be ignored silently. */
/** An http(s) URL template with `{txHash}` in it, or `none`. */
function parseExplorerTemplate(env: Env, name: string): string | null | undefined {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return undefined;
  if (raw === 'none') return null;
  let url: URL | null = null;
  try {
    url = new URL(raw.replace('{txHash}', '0x'));
  } catch {
    url = null;
  }
  if (
    !raw.includes('{txHash}') ||
    !url ||
    (url.protocol !== 'https:' && url.protocol !== 'http:')
  ) {
    throw new ConfigError(
      name,
      'must be an http(s) URL containing {txHash} (e.g. https://basescan.org/tx/{txHash}), or none',
    );
  }
  return raw;
}

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
