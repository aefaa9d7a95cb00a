import { SecretText } from './crosschain.ts';
import {
  ConfigError,
  type Env,
  nonEmpty,
  parseBaseUrl,
  parseBoolean,
  parseInteger,
} from './readers.ts';

/**
 * The screening providers that check payer wallets (`SCREENING_*`, src/screening/): each one's
 * API base URL and key, and what the service does when none answers. A provider without a URL
 * is not configured: a link that names it is screened by its backup or, with none, by the
 * policy (fail closed unless `SCREENING_FAIL_OPEN`). The sandbox points both at its own fake.
 */

export interface ScreeningProviderConfig {
  /** Base URL, no trailing slash. */
  readonly url: string;
  readonly apiKey: SecretText | null;
}

export interface ScreeningConfig {
  /** `SCREENING_HYPERNATIVE_URL` / `_API_KEY`; null: not configured. */
  readonly hypernative: ScreeningProviderConfig | null;
  /** `SCREENING_MERKLESCIENCE_URL` / `_API_KEY`; null: not configured. */
  readonly merklescience: ScreeningProviderConfig | null;
  /** `SCREENING_TIMEOUT_MS`: the most one provider call may take. */
  readonly timeoutMs: number;
  /** `SCREENING_CACHE_SECONDS`: how long a provider's answer about a wallet is reused. */
  readonly cacheSeconds: number;
  /** `SCREENING_FAIL_OPEN`: let a payer through when no provider answers (default: refuse). */
  readonly failOpen: boolean;
  /** `SCREENING_COMPLETION_POLL_MS`: how often completed links' payers are screened again. */
  readonly completionPollMs: number;
  /** True when neither URL was set: the sandbox then starts its fake and uses it for both. */
  readonly defaulted?: boolean;
}

function provider(env: Env, name: 'HYPERNATIVE' | 'MERKLESCIENCE'): ScreeningProviderConfig | null {
  const url = parseBaseUrl(env, `SCREENING_${name}_URL`);
  const key = nonEmpty(env, `SCREENING_${name}_API_KEY`);
  if (key !== undefined && !/^[\x21-\x7e]+$/.test(key)) {
    throw new ConfigError(`SCREENING_${name}_API_KEY`, 'must be printable ASCII without spaces');
  }
  if (url === undefined) return null;
  return { url, apiKey: key === undefined ? null : new SecretText(key) };
}

export function parseScreening(env: Env): ScreeningConfig {
  const hypernative = provider(env, 'HYPERNATIVE');
  const merklescience = provider(env, 'MERKLESCIENCE');
  return {
    hypernative,
    merklescience,
    timeoutMs: parseInteger(env, 'SCREENING_TIMEOUT_MS', 10, 60_000) ?? 5_000,
    cacheSeconds: parseInteger(env, 'SCREENING_CACHE_SECONDS', 0, 86_400) ?? 60,
    failOpen: parseBoolean(env, 'SCREENING_FAIL_OPEN') ?? false,
    completionPollMs: parseInteger(env, 'SCREENING_COMPLETION_POLL_MS', 10, 600_000) ?? 5_000,
    defaulted: hypernative === null && merklescience === null,
  };
}
