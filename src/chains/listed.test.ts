import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/app.ts';
import { sandboxNetwork } from '../sandbox/network.ts';
import { createChainRegistry } from './registry.ts';

const registry = createChainRegistry(testConfig());
const LOCAL_TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

describe('the token list in the registry', () => {
  it('adds the listed tokens of the served networks that no curated currency is', () => {
    const listedOnly = registry.currencies.filter((c) => !registry.isCurated(c));
    const count = (network: string) => listedOnly.filter((c) => c.network === network).length;
    // Mainnet lists 511 tokens, 3 of them curated; the other networks a few each.
    expect(count('mainnet')).toBe(508);
    expect(count('matic')).toBe(2);
    expect(count('bsc')).toBe(1);
    expect(count('optimism')).toBe(1);
    expect(count('arbitrum-one')).toBe(1);
    expect(listedOnly).toHaveLength(513);
    expect(listedOnly.every((c) => c.type === 'ERC20')).toBe(true);
    // Taken as written: the list checksums each of them.
    for (const currency of listedOnly) expect(currency.address).toBe(getAddress(currency.address));
    const ids = registry.currencies.map((c) => c.id.toLowerCase());
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('takes a listed token’s facts from the list, its address checksummed', () => {
    expect(registry.currency('busd-BSC')).toEqual({
      id: 'BUSD-bsc',
      name: 'BUSD',
      symbol: 'BUSD',
      decimals: 18,
      address: '0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56',
      network: 'bsc',
      type: 'ERC20',
      hash: '0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56',
      chainId: 56,
    });
    expect(registry.currenciesWithSymbol('usds').map((c) => c.id)).toEqual([
      'USDS-mainnet',
      'USDS-optimism',
      'USDS-arbitrum-one',
    ]);
  });

  it('keeps curated currencies curated, and destinations to them', () => {
    const usdc = registry.currency('USDCn-matic');
    expect(usdc?.id).toBe('USDC-matic');
    expect(usdc && registry.isCurated(usdc)).toBe(true);
    const busd = registry.currency('BUSD-bsc');
    expect(busd && registry.isCurated(busd)).toBe(false);
    expect(registry.currencyByToken('bsc', '0xe9e7cea3dedca5984780bafc599bd69add087d56')).toBe(
      undefined,
    );
  });

  it('serves tokens of networks we do not serve, without taking requests in them', () => {
    expect(registry.currency('YEL-fantom')).toBeUndefined();
    expect(registry.currency('USDC-avalanche')).toBeUndefined();
    expect(registry.catalogue.byId('YEL-fantom')?.network).toBe('fantom');
    expect(registry.catalogue.networks).toContain('avalanche');
  });

  it('moves a listed token with TOKENS_<NETWORK> by symbol, as it moves curated ones', () => {
    const chains = createChainRegistry(
      testConfig({ TOKENS_BSC: JSON.stringify({ BUSD: LOCAL_TOKEN, USDC: LOCAL_TOKEN }) }),
    );
    expect(chains.currency('BUSD-bsc')).toMatchObject({ address: LOCAL_TOKEN, hash: LOCAL_TOKEN });
    expect(chains.catalogue.byId('BUSD-bsc')).toMatchObject({ address: LOCAL_TOKEN });
    expect(chains.catalogue.byId('USDC-bsc')).toMatchObject({
      id: 'USDC-bsc',
      name: 'Binance-peg USD Coin',
      address: LOCAL_TOKEN,
      hash: LOCAL_TOKEN,
    });
  });

  it('leaves the sandbox its own tokens: the list names no sandbox network', () => {
    const chains = createChainRegistry(testConfig(), sandboxNetwork('http://127.0.0.1:3000'));
    const sandbox = chains.catalogue.onNetwork('sandbox').map((c) => c.id);
    expect(sandbox).toEqual([
      'ETH-sandbox',
      'USDC-sandbox',
      'USDT-sandbox',
      'DAI-sandbox',
      'TST-sandbox',
    ]);
    expect(chains.currencies.filter((c) => c.network === 'sandbox').every(chains.isCurated)).toBe(
      true,
    );
  });
});
