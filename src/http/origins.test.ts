import { describe, expect, it } from 'vitest';
import { normaliseAllowedOrigin, originAllowed } from './origins.ts';

describe('allowed origins', () => {
  it.each([
    ['https://shop.example', 'https://shop.example'],
    ['https://Shop.Example/', 'https://shop.example'],
    ['https://shop.example:443', 'https://shop.example'],
    ['https://shop.example:8443', 'https://shop.example:8443'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['http://127.0.0.1', 'http://127.0.0.1'],
    ['http://[::1]:5173', 'http://[::1]:5173'],
  ])('accepts %s as %s', (input, origin) => {
    expect(normaliseAllowedOrigin(input)).toEqual({ ok: true, origin });
  });

  it.each([
    ['http://shop.example', 'https'],
    ['ftp://shop.example', 'https'],
    ['shop.example', 'origin'],
    ['https://shop.example/path', 'path'],
    ['https://shop.example/?q=1', 'query'],
    ['https://shop.example#top', 'fragment'],
    ['https://user:pw@shop.example', 'credentials'],
    ['https://*.shop.example', 'wildcards'],
  ])('refuses %s', (input, reason) => {
    const check = normaliseAllowedOrigin(input);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toContain(reason);
  });

  it('matches an Origin header against the normalised list', () => {
    const allowed = ['https://shop.example', 'http://localhost:3000'];
    expect(originAllowed(allowed, 'https://shop.example')).toBe(true);
    expect(originAllowed(allowed, 'https://SHOP.example:443')).toBe(true);
    expect(originAllowed(allowed, 'http://localhost:3000')).toBe(true);
    expect(originAllowed(allowed, 'http://localhost:3001')).toBe(false);
    expect(originAllowed(allowed, 'https://shop.example.evil.com')).toBe(false);
    expect(originAllowed(allowed, 'null')).toBe(false);
    expect(originAllowed([], 'https://shop.example')).toBe(false);
  });

  it('matches an http origin the operator configured (PAY_URL), but only a bare origin', () => {
    const allowed = ['http://pay.internal'];
    expect(originAllowed(allowed, 'http://pay.internal')).toBe(true);
    expect(originAllowed(allowed, 'http://PAY.internal:80')).toBe(true);
    expect(originAllowed(allowed, 'https://pay.internal')).toBe(false);
    expect(originAllowed(allowed, 'http://pay.internal/path')).toBe(false);
    expect(originAllowed(allowed, 'http://user@pay.internal')).toBe(false);
    expect(originAllowed(allowed, 'http://pay.internal?x')).toBe(false);
    expect(originAllowed(allowed, 'ftp://pay.internal')).toBe(false);
  });
});
