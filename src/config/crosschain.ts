import { ConfigError, type Env, nonEmpty, parseBaseUrl, parseInteger } from './readers.ts';

/**
 * The routing aggregator of cross-chain payments (`LIFI_*`): a LI.FI-compatible API, restricted
 * to one bridge. The sandbox points it at its own fake; a deployment at LI.FI's API.
 */

/** LI.FI's public API. */
const DEFAULT_LIFI_URL = 'https://li.quest';
/** The one bridge routes may use, as LI.FI names it: the reference routes through Across only. */
const DEFAULT_BRIDGE = 'across';
/** Per call, body included: a quote with a destination call takes LI.FI a few seconds. */
const DEFAULT_TIMEOUT_MS = 10_000;
/** Failures in a row that open the breaker. */
const DEFAULT_BREAKER_FAILURES = 5;
/** How long an open breaker answers at once before it lets one probe through. */
const DEFAULT_BREAKER_HALF_OPEN_MS = 30_000;

export interface CrosschainConfig {
  /** `LIFI_URL`: the API's base URL, no trailing slash (operations live under `/v1`). */
  readonly url: string;
  /**
   * True when `LIFI_URL` was not set and `url` is LI.FI's by default: then the sandbox, when it
   * runs with the embedded database, starts its own aggregator and points the client at it.
   */
  readonly urlDefaulted?: boolean;
  /** `LIFI_API_KEY`, sent as `x-lifi-api-key`; null: none (LI.FI's anonymous rate limit). */
  readonly apiKey: SecretText | null;
  /** `LIFI_BRIDGE`: the only bridge routes may use, sent as `allowBridges`. */
  readonly bridge: string;
  /** `LIFI_TIMEOUT_MS`: the most one call may take. */
  readonly timeoutMs: number;
  /** `LIFI_BREAKER_FAILURES`: failed calls in a row that open the circuit breaker. */
  readonly breakerFailures: number;
  /** `LIFI_BREAKER_HALF_OPEN_MS`: how long the open breaker waits before one probe call. */
  readonly breakerHalfOpenMs: number;
}

/**
 * A secret that shows nothing when logged, inspected or serialised (the configuration is
 * printed and logged whole); `reveal()` gives it to the one place that sends it.
 */
export class SecretText {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
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

export function parseCrosschain(env: Env): CrosschainConfig {
  const apiKey = nonEmpty(env, 'LIFI_API_KEY');
  // A header value: a line break in it would be refused by the HTTP client at the first call.
  if (apiKey !== undefined && !/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new ConfigError('LIFI_API_KEY', 'must be printable ASCII without spaces');
  }
  const bridge = nonEmpty(env, 'LIFI_BRIDGE') ?? DEFAULT_BRIDGE;
  if (!/^[A-Za-z0-9-]{1,64}$/.test(bridge)) {
    throw new ConfigError(
      'LIFI_BRIDGE',
      `must be one bridge key, such as across (got "${bridge}")`,
    );
  }
  const url = parseBaseUrl(env, 'LIFI_URL');
  return {
    url: url ?? DEFAULT_LIFI_URL,
    urlDefaulted: url === undefined,
    apiKey: apiKey === undefined ? null : new SecretText(apiKey),
    bridge,
    timeoutMs: parseInteger(env, 'LIFI_TIMEOUT_MS', 10, 120_000) ?? DEFAULT_TIMEOUT_MS,
    breakerFailures:
      parseInteger(env, 'LIFI_BREAKER_FAILURES', 1, 1_000) ?? DEFAULT_BREAKER_FAILURES,
    breakerHalfOpenMs:
      parseInteger(env, 'LIFI_BREAKER_HALF_OPEN_MS', 10, 3_600_000) ?? DEFAULT_BREAKER_HALF_OPEN_MS,
  };
}
