import { normaliseAllowedOrigin } from '../http/origins.ts';

/**
 * Readers of one environment variable each, for `parseConfig`: absent (or blank) reads as
 * undefined or null, a value that does not parse throws a `ConfigError` naming the variable.
 * Secret values never appear in an error.
 */

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable} ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

export function nonEmpty(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

export function parseInteger(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

export function parseTrustProxy(env: Env): boolean | number | string {
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

export function parseBoolean(env: Env, name: string): boolean | undefined {
  const raw = nonEmpty(env, name)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, 'must be true or false');
}

/** A JSON object of addresses; with `keys`, only those keys. Addresses are checked by their users. */
export function parseAddressMap<K extends string>(
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

export function parsePort(env: Env, name: string): number | undefined {
  return parseInteger(env, name, 0, 65_535);
}

export function parseUrl(env: Env, name: string, protocols: readonly string[]): string | null {
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
export function parseBaseUrl(env: Env, name: string): string | undefined {
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
export function parseFrameAncestors(env: Env): string {
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

/** 32 bytes, as 64 hex digits or base64. The value itself never appears in an error. */
export function parseSecretKey(env: Env): Buffer | null {
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
export function parseRelayerKey(env: Env): PrivateKey | null {
  return parsePrivateKey(env, 'RECURRING_RELAYER_KEY');
}

/** The private key in `name`, null when unset; a bad value names the variable, never the value. */
export function parsePrivateKey(env: Env, name: string): PrivateKey | null {
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

/** An http(s) URL template with `{txHash}` in it, or `none`. */
export function parseExplorerTemplate(env: Env, name: string): string | null | undefined {
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
