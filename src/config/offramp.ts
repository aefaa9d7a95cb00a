import { SecretText } from './crosschain.ts';
import { ConfigError, type Env, nonEmpty, parseBaseUrl, parseInteger } from './readers.ts';

/**
 * The off-ramp provider of crypto-to-fiat payments (`OFFRAMP_*`, src/offramp/): its REST API's
 * base URL and key, and the secret its callbacks are signed with. Unset, crypto-to-fiat `/pay`
 * answers 400 `feature_unavailable`; the sandbox starts its own fake and points these at it.
 */

const DEFAULT_TIMEOUT_MS = 10_000;

export interface OfframpConfig {
  /** `OFFRAMP_URL`: the provider's API base URL, no trailing slash; null: none configured. */
  readonly url: string | null;
  /** `OFFRAMP_API_KEY`, sent as `Api-Key`. */
  readonly apiKey: SecretText | null;
  /** `OFFRAMP_WEBHOOK_SECRET`: the provider signs its callbacks with it (HMAC-SHA256). */
  readonly webhookSecret: SecretText | null;
  /** `OFFRAMP_TIMEOUT_MS`: the most one call may take. */
  readonly timeoutMs: number;
}

export function parseOfframp(env: Env): OfframpConfig {
  const key = (name: string): SecretText | null => {
    const value = nonEmpty(env, name);
    if (value === undefined) return null;
    if (!/^[\x21-\x7e]+$/.test(value))
      throw new ConfigError(name, 'must be printable ASCII without spaces');
    return new SecretText(value);
  };
  return {
    url: parseBaseUrl(env, 'OFFRAMP_URL') ?? null,
    apiKey: key('OFFRAMP_API_KEY'),
    webhookSecret: key('OFFRAMP_WEBHOOK_SECRET'),
    timeoutMs: parseInteger(env, 'OFFRAMP_TIMEOUT_MS', 10, 120_000) ?? DEFAULT_TIMEOUT_MS,
  };
}
