import { SecretText } from './crosschain.ts';
import {
  ConfigError,
  decodeSecretKey,
  type Env,
  nonEmpty,
  parseBaseUrl,
  parseInteger,
} from './readers.ts';

/**
 * The compliance provider of payers (`COMPLIANCE_*`, src/payer/provider.ts) and the keys that
 * seal their personal data at rest (`DATA_KEYS`, `DATA_KEY_ID`, src/base/key-ring.ts).
 */

const DEFAULT_TIMEOUT_MS = 10_000;

export interface ComplianceConfig {
  /** `COMPLIANCE_URL`: the provider's API base URL; null: none (the sandbox runs its fake). */
  readonly url: string | null;
  /** `COMPLIANCE_API_KEY`, sent as `Api-Key`. */
  readonly apiKey: SecretText | null;
  /** `COMPLIANCE_WEBHOOK_SECRET`: the HMAC key of the provider's status callbacks. */
  readonly webhookSecret: SecretText | null;
  /** `COMPLIANCE_TIMEOUT_MS`: the most one call may take. */
  readonly timeoutMs: number;
}

/** A key of DATA_KEYS: its id, and its 32 bytes (hidden when printed). */
interface DataKey {
  readonly id: string;
  readonly key: SecretText;
}

export interface DataKeysConfig {
  /** `DATA_KEYS`: `id:key,id:key` (each key 32 bytes as 64 hex digits or base64). */
  readonly keys: readonly DataKey[];
  /** `DATA_KEY_ID`: the key new data is sealed under; null: SECRET_KEY's. */
  readonly currentId: string | null;
}

export function parseCompliance(env: Env): ComplianceConfig {
  const apiKey = nonEmpty(env, 'COMPLIANCE_API_KEY');
  if (apiKey !== undefined && !/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new ConfigError('COMPLIANCE_API_KEY', 'must be printable ASCII without spaces');
  }
  const secret = nonEmpty(env, 'COMPLIANCE_WEBHOOK_SECRET');
  if (secret !== undefined && secret.length < 16) {
    throw new ConfigError('COMPLIANCE_WEBHOOK_SECRET', 'must be at least 16 characters');
  }
  return {
    url: parseBaseUrl(env, 'COMPLIANCE_URL') ?? null,
    apiKey: apiKey === undefined ? null : new SecretText(apiKey),
    webhookSecret: secret === undefined ? null : new SecretText(secret),
    timeoutMs: parseInteger(env, 'COMPLIANCE_TIMEOUT_MS', 10, 120_000) ?? DEFAULT_TIMEOUT_MS,
  };
}

export function parseDataKeys(env: Env): DataKeysConfig {
  const raw = nonEmpty(env, 'DATA_KEYS');
  const keys: DataKey[] = [];
  for (const entry of raw === undefined ? [] : raw.split(',')) {
    const at = entry.indexOf(':');
    const id = entry.slice(0, at).trim();
    if (at < 0 || !/^[A-Za-z0-9_-]{1,32}$/.test(id)) {
      throw new ConfigError('DATA_KEYS', 'must be id:key pairs, ids 1-32 of A-Z a-z 0-9 _ -');
    }
    const text = entry.slice(at + 1).trim();
    if (decodeSecretKey(text) === null) {
      throw new ConfigError('DATA_KEYS', `key ${id} must be 32 bytes as 64 hex digits or base64`);
    }
    if (keys.some((key) => key.id === id)) {
      throw new ConfigError('DATA_KEYS', `key ${id} is given twice`);
    }
    keys.push({ id, key: new SecretText(text) });
  }
  const currentId = nonEmpty(env, 'DATA_KEY_ID') ?? null;
  if (currentId !== null && !/^[A-Za-z0-9_-]{1,32}$/.test(currentId)) {
    throw new ConfigError('DATA_KEY_ID', 'must be a key id: 1-32 of A-Z a-z 0-9 _ -');
  }
  return { keys, currentId };
}
