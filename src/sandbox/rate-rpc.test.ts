import { describe, expect, it } from 'vitest';
import { parseRateChange } from './rate-rpc.ts';

/** `sandbox_setRate`'s params, checked before anything touches the chain. */

function refusal(params: unknown): { code: unknown; message: string } {
  try {
    parseRateChange(params);
  } catch (error) {
    const { code, message } = error as { code?: unknown; message: string };
    return { code, message };
  }
  throw new Error('accepted');
}

describe('sandbox_setRate params', () => {
  it('takes a fiat code or a sandbox token, in any case or as its currency id', () => {
    expect(parseRateChange([{ from: 'EUR', to: 'USD', rate: '1.10' }])).toEqual({
      from: 'EUR',
      to: 'USD',
      rate: 110_000_000n,
    });
    expect(parseRateChange([{ from: 'usdc-sandbox', to: 'usd', rate: '0.95' }])).toEqual({
      from: 'USDC',
      to: 'USD',
      rate: 95_000_000n,
    });
    expect(parseRateChange([{ from: 'ETH', to: 'USD', rate: '2500' }]).rate).toBe(250_000_000_000n);
  });

  it('says which way a feed goes when the pair is sent reversed', () => {
    expect(refusal([{ from: 'USD', to: 'EUR', rate: '0.9' }])).toEqual({
      code: -32602,
      message: "The sandbox's feed prices EUR in USD: send from EUR to USD, with the rate inverted",
    });
  });

  it('lists the feeds for a pair the sandbox has none of', () => {
    expect(refusal([{ from: 'EUR', to: 'GBP', rate: '1' }]).message).toBe(
      'No sandbox feed from EUR to GBP; the feeds are USDC→USD, USDT→USD, DAI→USD, ETH→USD, EUR→USD, GBP→USD, CNY→USD, JPY→USD',
    );
  });

  it('refuses rates that are not positive decimals with at most 8 decimals', () => {
    for (const rate of ['0', '-1', '1e3', '1.123456789', 1.1, '']) {
      expect(refusal([{ from: 'EUR', to: 'USD', rate }]), String(rate)).toEqual({
        code: -32602,
        message:
          'rate must be a decimal string greater than 0 with at most 8 decimals, such as "1.10" (USD per EUR)',
      });
    }
  });

  it('refuses other shapes and unknown fields', () => {
    expect(refusal([]).code).toBe(-32602);
    expect(refusal({ from: 'EUR', to: 'USD', rate: '1' }).code).toBe(-32602);
    expect(refusal([{ from: 'EUR', to: 'USD', rate: '1' }, {}]).code).toBe(-32602);
    expect(refusal([{ from: 'EUR', to: 'USD', rate: '1', at: 'now' }]).message).toBe(
      'at is not a field of sandbox_setRate',
    );
    expect(refusal([{ from: 7, to: 'USD', rate: '1' }]).message).toBe(
      'from must be a fiat code or a sandbox token symbol, such as EUR or USDC',
    );
  });
});
