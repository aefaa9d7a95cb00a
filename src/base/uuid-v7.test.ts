import { describe, expect, it } from 'vitest';
import { isUuid } from './ids.ts';
import { uuidV7 } from './uuid-v7.ts';

describe('uuidV7', () => {
  it('writes the time first, then version 7 and the RFC 9562 variant', () => {
    const id = uuidV7(0x0123_4567_89ab);
    expect(id).toMatch(/^01234567-89ab-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(isUuid(id)).toBe(true);
  });

  it('sorts by time, as text and as Postgres compares uuids (bytewise)', () => {
    const ids = [1, 2, 255, 256, 2 ** 40, 2 ** 48 - 1].map((time) => uuidV7(time));
    expect([...ids].sort()).toEqual(ids);
  });

  it('spends its random bits: no two ids of one millisecond alike, every variant seen', () => {
    const ids = Array.from({ length: 2_000 }, () => uuidV7(1_700_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id[19]))).toEqual(new Set(['8', '9', 'a', 'b']));
    // Every random hex position takes many values (a fixed digit would show as one).
    for (const position of [15, 16, 17, 20, 21, 22, 24, 30, 35]) {
      expect(new Set(ids.map((id) => id[position])).size).toBeGreaterThan(10);
    }
  });

  it('refuses a time that does not fit 48 bits', () => {
    expect(() => uuidV7(-1)).toThrow(RangeError);
    expect(() => uuidV7(2 ** 48)).toThrow(RangeError);
    expect(() => uuidV7(1.5)).toThrow(RangeError);
  });
});
