import { SecretText } from './crosschain.ts';
import { ConfigError, type Env, nonEmpty, parsePort } from './readers.ts';

/**
 * Where Prometheus reads `GET /metrics` (`METRICS_*`, src/metrics/): with `METRICS_PORT`, on a
 * listener of its own (`METRICS_HOST`, loopback by default), so the numbers never share an
 * address with the public API; with only `METRICS_TOKEN`, on the API's own port behind that
 * bearer token. Neither set: no metrics are served (nor collected).
 */

/** A token shorter than this is guessable enough to be refused at start. */
const MIN_TOKEN_LENGTH = 16;
const DEFAULT_METRICS_HOST = '127.0.0.1';

export interface MetricsConfig {
  /** `METRICS_TOKEN`: the bearer token a scrape must send; null: none asked (own listener only). */
  readonly token: SecretText | null;
  /** `METRICS_HOST`/`METRICS_PORT`: the listener of its own; null: served on the API's port. */
  readonly listen: { readonly host: string; readonly port: number } | null;
}

export function parseMetrics(env: Env): MetricsConfig | null {
  const raw = nonEmpty(env, 'METRICS_TOKEN');
  if (raw !== undefined && (raw.length < MIN_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(raw))) {
    throw new ConfigError(
      'METRICS_TOKEN',
      `must be at least ${MIN_TOKEN_LENGTH} printable ASCII characters without spaces`,
    );
  }
  const port = parsePort(env, 'METRICS_PORT');
  const host = nonEmpty(env, 'METRICS_HOST');
  if (host !== undefined && port === undefined) {
    throw new ConfigError('METRICS_HOST', 'needs METRICS_PORT (the port of its listener)');
  }
  if (raw === undefined && port === undefined) return null;
  return {
    token: raw === undefined ? null : new SecretText(raw),
    listen: port === undefined ? null : { host: host ?? DEFAULT_METRICS_HOST, port },
  };
}
