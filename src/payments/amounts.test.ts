import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAmount, parseAmount } from './amounts.ts';

describe('amounts', () => {
  it('round-trips base units through the decimal string for 0 to 18 decimals', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 18 }),
        fc.bigInt({ min: 1n, max: 10n ** 40n }),
        (decimals, value) => {
          const text = formatAmount(value, decimals);
          const parsed = parseAmount(text, decimals);
          expect(parsed).toEqual({ ok: true, value });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads what a person writes: trailing zeros allowed, same value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 18 }),
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        fc.integer({ min: 0, max: 5 }),
        (decimals, value, zeros) => {
          const text = formatAmount(value, decimals);
          const padded = text.includes('.') ? `${text}${'0'.repeat(zeros)}` : text;
          expect(parseAmount(padded, decimals)).toEqual({ ok: true, value });
        },
      ),
    );
  });

  it('refuses more decimals than the token has', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 17 }),
        fc.integer({ min: 1, max: 9 }),
        (decimals, lastDigit) => {
          const text = `1.${'0'.repeat(decimals)}${lastDigit}`;
          const parsed = parseAmount(text, decimals);
          expect(parsed.ok).toBe(false);
          if (!parsed.ok) expect(parsed.problem).toBe('too_many_decimals');
        },
      ),
    );
  });

  it.each([
    ['0', 'not_positive'],
    ['0.000', 'not_positive'],
    ['-1', 'not_a_decimal'],
    ['+1', 'not_a_decimal'],
    ['1e6', 'not_a_decimal'],
    ['1E-3', 'not_a_decimal'],
    [' 1', 'not_a_decimal'],
    ['1 ', 'not_a_decimal'],
    ['1,5', 'not_a_decimal'],
    ['.5', 'not_a_decimal'],
    ['5.', 'not_a_decimal'],
    ['01', 'not_a_decimal'],
    ['0x10', 'not_a_decimal'],
    ['', 'not_a_decimal'],
    ['NaN', 'not_a_decimal'],
    ['Infinity', 'not_a_decimal'],
    ['１', 'not_a_decimal'],
    ['1'.repeat(80), 'too_large'],
  ])('refuses %j (%s)', (text, problem) => {
    const parsed = parseAmount(text, 6);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toBe(problem);
  });

  it('refuses input longer than 100 characters before parsing it, however it is made', () => {
    for (const text of ['1'.repeat(101), `1.${'0'.repeat(99)}`, '9'.repeat(1_000_000)]) {
      expect(parseAmount(text, 18)).toEqual({
        ok: false,
        problem: 'too_large',
        message: 'must be at most 100 characters',
      });
    }
    // The longest that can be written still parses.
    expect(parseAmount(`1.${'0'.repeat(98)}`, 18)).toEqual({ ok: true, value: 10n ** 18n });
  });

  it('refuses any string with whitespace or a sign anywhere', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 20n }),
        fc.constantFrom(' ', '\t', '\n', '-', '+', 'e'),
        fc.nat(),
        (value, junk, at) => {
          const text = formatAmount(value, 6);
          const index = at % (text.length + 1);
          const spoiled = `${text.slice(0, index)}${junk}${text.slice(index)}`;
          expect(parseAmount(spoiled, 6).ok).toBe(false);
        },
      ),
    );
  });

  it('formats exactly', () => {
    expect(formatAmount(1_500_000n, 6)).toBe('1.5');
    expect(formatAmount(1n, 18)).toBe('0.000000000000000001');
    expect(formatAmount(100n, 0)).toBe('100');
    expect(formatAmount(0n, 6)).toBe('0');
    expect(formatAmount(-25n, 2)).toBe('-0.25');
  });
});
