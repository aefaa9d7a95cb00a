import type { ScreeningProviderName } from '../db/schema.ts';
import { ScreeningUnavailableError } from './provider.ts';

/**
 * Our network ids (Request's names: `matic`, `arbitrum-one`, …) as each provider names the
 * chain in its screening call. Best knowledge of their public documentation, not confirmed
 * against live accounts: check with the provider before production. Testnets and the sandbox
 * chains are screened as their mainnet (providers keep no testnet lists; a wallet's sanctions
 * status does not depend on the chain). A network with no entry is not screened: the call fails
 * as a provider failure would (backup, then the policy), never silently passes.
 */
export const PROVIDER_CHAINS: Readonly<
  Record<ScreeningProviderName, Readonly<Record<string, string>>>
> = {
  hypernative: {
    mainnet: 'ethereum',
    'arbitrum-one': 'arbitrum',
    optimism: 'optimism',
    base: 'base',
    matic: 'polygon',
    bsc: 'bsc',
    tron: 'tron',
    sepolia: 'ethereum',
    sandbox: 'ethereum',
    'sandbox-b': 'ethereum',
  },
  merklescience: {
    mainnet: 'ethereum',
    'arbitrum-one': 'arbitrum',
    optimism: 'optimism',
    base: 'base',
    matic: 'polygon',
    bsc: 'binance-smart-chain',
    tron: 'tron',
    sepolia: 'ethereum',
    sandbox: 'ethereum',
    'sandbox-b': 'ethereum',
  },
};

export function providerChain(provider: ScreeningProviderName, network: string): string {
  const chain = PROVIDER_CHAINS[provider][network];
  if (chain === undefined) {
    throw new ScreeningUnavailableError(provider, `does not cover the network ${network}`);
  }
  return chain;
}
