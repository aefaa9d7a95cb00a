import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/app.ts';
import type { Currency } from '../chains/currencies.ts';
import type { Network, NetworkId } from '../chains/networks.ts';
import { createChainRegistry } from '../chains/registry.ts';
import { faceValueEstimate, type PaymentNeed, paymentSources } from './payment-options-sources.ts';

const chains = createChainRegistry(testConfig());
const all = () => true;

function need(currencyId: string, amount: bigint): PaymentNeed {
  const currency = chains.currency(currencyId) as Currency;
  return { network: chains.network(currency.network) as Network, currency, amount };
}

const keys = (needs: PaymentNeed[], reachable: (id: NetworkId) => boolean = all) =>
  paymentSources(chains, reachable, needs).map((s) => `${s.chainKey}.${s.tokenKey}`);

describe('paymentSources', () => {
  it('offers a USDC link every USD source token of every reachable chain, its own first', () => {
    expect(keys([need('USDC-arbitrum-one', 1n)])).toEqual([
      'ARBITRUM.USDC',
      // USDT0 is USDT's contract on Arbitrum and Polygon: one option, named USDT.
      'ARBITRUM.USDT',
      'ETHEREUM.USDC',
      'ETHEREUM.USDT',
      'OPTIMISM.USDC',
      'OPTIMISM.USDT',
      'OPTIMISM.USDT0',
      'BASE.USDC',
      'BASE.USDT',
      'POLYGON.USDC',
      'POLYGON.USDT',
      'BNB.USDC',
      'BNB.USDT',
    ]);
  });

  it('keeps to the chains this server can reach', () => {
    const reachable = (id: NetworkId) => id === 'base' || id === 'optimism';
    expect(keys([need('USDT-base', 1n)], reachable)).toEqual([
      'BASE.USDT',
      'BASE.USDC',
      'OPTIMISM.USDC',
      'OPTIMISM.USDT',
      'OPTIMISM.USDT0',
    ]);
    // The link's own chain out of reach: nothing can be read.
    expect(keys([need('USDC-mainnet', 1n)], reachable)).toEqual([]);
  });

  it('offers a native or unpegged link its own currency only, and a Tron link nothing', () => {
    expect(keys([need('ETH-base', 1n)])).toEqual(['BASE.ETH']);
    expect(keys([need('FAU-sepolia', 1n)])).toEqual(['SEPOLIA.FAU']);
    // A testnet's USDC is not bridged: no mainnet source pays it.
    expect(keys([need('USDC-sepolia', 1n)])).toEqual(['SEPOLIA.USDC']);
    expect(keys([need('USDT-tron', 1n)])).toEqual([]);
  });

  it('keeps a link asking for two currencies on its own chain', () => {
    expect(keys([need('USDC-base', 1n), need('DAI-base', 1n)])).toEqual(['BASE.USDC', 'BASE.DAI']);
  });
});

describe('faceValueEstimate', () => {
  const [usdcBase] = paymentSources(chains, all, [need('USDC-base', 1_500_000n)]);
  const onBsc = paymentSources(chains, all, [need('USDC-base', 1_500_000n)]).find(
    (s) => s.chainKey === 'BNB' && s.tokenKey === 'USDC',
  );
  const fromDai = paymentSources(chains, all, [need('DAI-base', 1_500_000_000_001n)]).find(
    (s) => s.chainKey === 'BASE' && s.tokenKey === 'USDC',
  );

  it('asks the need itself of the link’s own currency', async () => {
    expect(usdcBase && (await faceValueEstimate(usdcBase))).toBe(1_500_000n);
  });

  it('scales to the source’s decimals, rounding up', async () => {
    // 1.5 USDC (6 decimals) as BSC's 18-decimal USDC.
    expect(onBsc && (await faceValueEstimate(onBsc))).toBe(1_500_000_000_000_000_000n);
    // 0.000001500000000001 DAI needs 0.000002 USDC: a base unit less would not cover it.
    expect(fromDai && (await faceValueEstimate(fromDai))).toBe(2n);
  });
});
