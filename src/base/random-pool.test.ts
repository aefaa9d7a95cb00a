import { describe, expect, it } from 'vitest';
import { randomHex, readRandom } from './random-pool.ts';

describe('random pool', () => {
  it('hands out fresh hex of the asked length, never the same twice across refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const hex = randomHex(8);
      expect(hex).toMatch(/^[0-9a-f]{16}$/);
      seen.add(hex);
    }
    expect(seen.size).toBe(5_000);
    expect(randomHex(32)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('wipes the bytes it handed out once they are read', () => {
    let pool: Buffer | undefined;
    let at = 0;
    const copy = readRandom(16, (bytes, offset) => {
      pool = bytes;
      at = offset;
      return Buffer.from(bytes.subarray(offset, offset + 16));
    });
    expect(copy.equals(Buffer.alloc(16))).toBe(false);
    expect(pool?.subarray(at, at + 16).equals(Buffer.alloc(16))).toBe(true);
  });

  it('refuses to take nothing or more than the pool holds', () => {
    expect(() => randomHex(0)).toThrow(RangeError);
    expect(() => randomHex(4097)).toThrow(RangeError);
  });
});
