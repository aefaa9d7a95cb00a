import { describe, expect, it } from 'vitest';
import { NETWORKS, SANDBOX_B_NETWORK, SANDBOX_NETWORK } from '../chains/networks.ts';
import { PROVIDER_CHAINS, providerChain } from './chains.ts';
import { ScreeningUnavailableError } from './provider.ts';

/** Each provider gets the chain by its own name, for every network a link can be on. */
describe('providerChain', () => {
  it('names every network we serve for both providers, in their words', () => {
    for (const network of [...NETWORKS, SANDBOX_NETWORK, SANDBOX_B_NETWORK]) {
      for (const provider of ['hypernative', 'merklescience'] as const) {
        expect(PROVIDER_CHAINS[provider][network.id], `${provider} ${network.id}`).toBeTypeOf(
          'string',
        );
      }
    }
    expect(providerChain('hypernative', 'matic')).toBe('polygon');
    expect(providerChain('hypernative', 'arbitrum-one')).toBe('arbitrum');
    expect(providerChain('merklescience', 'base')).toBe('base');
    expect(providerChain('merklescience', 'tron')).toBe('tron');
  });

  it('fails as a provider failure on a network it does not cover', () => {
    expect(() => providerChain('merklescience', 'nowhere')).toThrow(ScreeningUnavailableError);
  });
});
