import { describe, expect, it } from 'vitest';
import {
  API_KEY_PREFIX,
  digestSecret,
  looksLikeSecret,
  lookupPrefix,
  matchDigest,
  mintSecret,
} from './credentials.ts';

describe('credentials', () => {
  it('mints 32 random bytes behind the prefix, never twice the same', () => {
    const a = mintSecret(API_KEY_PREFIX);
    const b = mintSecret(API_KEY_PREFIX);
    expect(a).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(3), 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(looksLikeSecret(a, API_KEY_PREFIX)).toBe(true);
    expect(looksLikeSecret(`${a}x`, API_KEY_PREFIX)).toBe(false);
    expect(looksLikeSecret(a.replace('sk_', 'xx_'), API_KEY_PREFIX)).toBe(false);
  });

  it('finds a row by digest and keeps only 8 characters of the secret in clear', () => {
    const secret = mintSecret(API_KEY_PREFIX);
    expect(lookupPrefix(secret, API_KEY_PREFIX)).toBe(secret.slice(0, 11));
    const rows = [{ keyHash: digestSecret('other') }, { keyHash: digestSecret(secret) }];
    expect(matchDigest(rows, secret)).toBe(rows[1]);
    expect(matchDigest(rows, `${secret}x`)).toBeUndefined();
  });
});
