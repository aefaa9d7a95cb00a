import { describe, expect, it } from 'vitest';
import { commonSources } from './multicall.ts';

/** What a multicall payout's page offers to pay it from: the sources its children share. */

const option = (balance: string, neededAmount: string, hasEnoughBalance = true) => ({
  balance,
  neededAmount,
  hasEnoughBalance,
});

describe('a multicall payout’s sources on the page', () => {
  it('offers only the sources every child has, with what they take together', () => {
    const base = {
      BASE: { USDC: option('10', '1.5') },
      ARBITRUM: { USDT: option('8.2', '1.5'), USDC: option('0', '1.5', false) },
    };
    const optimism = {
      OPTIMISM: { USDC: option('4', '3') },
      ARBITRUM: { USDT: option('8.2', '3'), USDC: option('0', '3', false) },
      BASE: { USDC: option('10', '3') },
    };
    const sources = commonSources([base, optimism]);
    expect(sources.map((s) => [`${s.chain}:${s.token}`, s.needed, s.covers])).toEqual([
      ['BASE:USDC', '4.5', true],
      ['ARBITRUM:USDT', '4.5', true],
      ['ARBITRUM:USDC', '4.5', false],
    ]);
  });

  it('says a balance that covers each child alone but not all of them does not cover', () => {
    const child = { ARBITRUM: { USDT: option('2.000001', '1.25') } };
    const [both] = commonSources([child, child]);
    expect(both).toMatchObject({ needed: '2.5', covers: false, balance: '2.000001' });
    const [exact] = commonSources([{ ARBITRUM: { USDT: option('2.5', '1.25') } }, child]);
    expect(exact).toMatchObject({ needed: '2.5', covers: true });
  });

  it('offers nothing without children, or when they share no source', () => {
    expect(commonSources([])).toEqual([]);
    expect(
      commonSources([
        { BASE: { USDC: option('1', '1') } },
        { OPTIMISM: { USDC: option('1', '1') } },
      ]),
    ).toEqual([]);
  });
});
