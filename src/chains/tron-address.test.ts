import { describe, expect, it } from 'vitest';
import { evmToTron, isTronAddress, tronToEvm } from './tron-address.ts';

describe('Tron addresses', () => {
  it('convert both ways (contracts.md §8 pairs)', () => {
    expect(tronToEvm('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t').toLowerCase()).toBe(
      '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c',
    );
    expect(evmToTron('0x1b6ca35d39842cf8fbe49000653a1505412da659')).toBe(
      'TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd',
    );
    expect(tronToEvm('TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8').toLowerCase()).toBe(
      '0x3487b63d30b5b2c87fb7ffa8bcfade38eaac1abe',
    );
  });

  it('refuse a bad checksum or shape', () => {
    expect(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(true);
    expect(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toBe(false);
    expect(isTronAddress('0xa614f803b6fd780986a42c78ec9c7f77e6ded13c')).toBe(false);
    expect(isTronAddress('T123')).toBe(false);
    expect(() => tronToEvm('nope')).toThrow();
  });
});
