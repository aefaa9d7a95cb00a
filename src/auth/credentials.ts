import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Server-side credentials (API keys, orchestrator keys) are 32 random bytes behind a type
 * prefix. We keep only a SHA-256 digest and a short lookup prefix: a leaked table cannot be
 * replayed, and a fast hash is enough because the secret has 256 bits of entropy.
 */

const SECRET_BYTES = 32;
/** Characters of the random part kept in clear to find the row (48 bits: collisions are rare and handled). */
const LOOKUP_CHARS = 8;

export const API_KEY_PREFIX = 'sk_';
export const ORCHESTRATOR_KEY_PREFIX = 'orc_';
export const CLIENT_ID_PREFIX = 'cli_';

export function mintSecret(prefix: string, bytes = SECRET_BYTES): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

export function digestSecret(secret: string): string {
  // The one-shot form: no Hash object per call (the credential hook digests every API key sent).
  return hash('sha256', secret, 'hex');
}

export function lookupPrefix(secret: string, prefix: string): string {
  return secret.slice(0, prefix.length + LOOKUP_CHARS);
}

/** Shape check before touching the database: the right prefix and the base64url body we mint. */
export function looksLikeSecret(value: string, prefix: string, bytes = SECRET_BYTES): boolean {
  const bodyLength = Math.ceil((bytes * 4) / 3);
  return (
    value.length === prefix.length + bodyLength &&
    value.startsWith(prefix) &&
    /^[A-Za-z0-9_-]+$/.test(value.slice(prefix.length))
  );
}

/** Constant-time comparison of two hex digests of equal length. */
function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The row whose digest matches the presented secret, compared in constant time. */
export function matchDigest<T extends { readonly keyHash: string }>(
  rows: readonly T[],
  presented: string,
): T | undefined {
  const digest = digestSecret(presented);
  return rows.find((row) => digestsEqual(row.keyHash, digest));
}
