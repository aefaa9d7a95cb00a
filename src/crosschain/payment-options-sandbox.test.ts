import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/app.ts';
import type { Currency } from '../chains/currencies.ts';
import { type Network, SANDBOX_B_NETWORK } from '../chains/networks.ts';
import { createChainRegistry } from '../chains/registry.ts';
import { sandboxNetwork } from '../sandbox/network.ts';
import { type PaymentNeed, paymentSources } from './payment-options-sources.ts';

/**
 * The sandbox's two chains are bridged by the sandbox's own aggregator: between each other
 * only, and across chains only (its bridge makes no swap on one chain).
 */

const BASE_URL = 'http://127.0.0.1:8080';
const both = createChainRegistry(testConfig(), [
  sandboxNetwork(BASE_URL),
  sandboxNetwork(BASE_URL, SANDBOX_B_NETWORK),
]);
const one = createChainRegistry(testConfig(), sandboxNetwork(BASE_URL));

function keys(chains: typeof both, currencyId: string): string[] {
  const currency = chains.currency(currencyId) as Currency;
  const need: PaymentNeed = {
    network: chains.network(currency.network) as Network,
    currency,
    amount: 1n,
  };
  return paymentSources(chains, () => true, [need]).map((s) => `${s.chainKey}.${s.tokenKey}`);
}

describe('paymentSources on the sandbox', () => {
  it('offers a sandbox link the other sandbox chain’s USDC and USDT, and no real network', () => {
    expect(keys(both, 'USDC-sandbox')).toEqual([
      'SANDBOX.USDC',
      'SANDBOX_B.USDC',
      'SANDBOX_B.USDT',
    ]);
    expect(keys(both, 'USDT-sandbox-b')).toEqual([
      'SANDBOX_B.USDT',
      'SANDBOX.USDC',
      'SANDBOX.USDT',
    ]);
  });

  it('offers a sandbox link its own currency alone when the sandbox runs one chain', () => {
    expect(keys(one, 'USDC-sandbox')).toEqual(['SANDBOX.USDC']);
  });

  it('never offers a real network’s link a sandbox chain', () => {
    const offered = keys(both, 'USDC-base');
    expect(offered[0]).toBe('BASE.USDC');
    expect(offered.filter((key) => key.startsWith('SANDBOX'))).toEqual([]);
  });
});
