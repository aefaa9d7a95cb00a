import { randomBytes } from 'node:crypto';
import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { encodeRandom, ulid } from './ulid.ts';

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

  it('writes 10 random bytes as their 80 bits, 5 at a time, most significant first', () => {
    const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    const reference = (bytes: Uint8Array) => {
      let bits = BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
      let text = '';
      for (let i = 0; i < 16; i++) {
        text = alphabet[Number(bits & 31n)] + text;
        bits >>= 5n;
      }
      return text;
    };
    const samples = [
      new Uint8Array(10),
      new Uint8Array(10).fill(255),
      Uint8Array.from([1, 2, 4, 8, 16, 32, 64, 128, 3, 7]),
      ...Array.from({ length: 200 }, () => Uint8Array.from(randomBytes(10))),
    ];
    for (const bytes of samples) {
      const padded = new Uint8Array(13);
      padded.set(bytes, 3);
      expect(encodeRandom(padded, 3)).toBe(reference(bytes));
    }
    expect(encodeRandom(new Uint8Array(10).fill(255), 0)).toBe('Z'.repeat(16));
  });
});
