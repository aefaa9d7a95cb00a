import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { ulid } from './ulid.ts';

describe('ulid', () => {
  it('writes the time in the first 10 characters, as the ulid package reads it', () => {
    for (const time of [0, 1, 1_795_000_000_000, 2 ** 48 - 1]) {
      const id = ulid(time);
      expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(isValid(id)).toBe(true);
      expect(decodeTime(id)).toBe(time);
    }
    expect(ulid(0).slice(0, 10)).toBe('0000000000');
    expect(ulid(2 ** 48 - 1).slice(0, 10)).toBe('7ZZZZZZZZZ');
  });

  it('refuses times a ULID cannot hold', () => {
    for (const time of [-1, 1.5, 2 ** 48, Number.NaN]) expect(() => ulid(time)).toThrow(RangeError);
  });

  it('never repeats, across many refills of the pool, and spreads its random characters', () => {
    const ids = new Set<string>();
    const counts = new Map<string, number>();
    for (let i = 0; i < 50_000; i++) {
      const id = ulid(1_795_000_000_000);
      ids.add(id);
      for (const c of id.slice(10)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(ids.size).toBe(50_000);
    // 800,000 random characters over 32 symbols: 25,000 each expected; a stuck bit or a
    // repeated pool would push some symbols far off.
    expect(counts.size).toBe(32);
    for (const count of counts.values()) expect(Math.abs(count - 25_000)).toBeLessThan(1_500);
  });
});
