import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/app.ts';
import { sandboxAddresses } from '../sandbox/addresses.ts';
import { sandboxNetwork } from '../sandbox/network.ts';
import { type Currency, requestCurrencyHash, sameToken } from './currencies.ts';
import { NETWORKS } from './networks.ts';
import { createChainRegistry } from './registry.ts';

const registry = createChainRegistry(testConfig());
/** The curated set; the token list's other tokens follow it (listed.test.ts). */
const CURRENCIES = registry.currencies.filter((currency) => registry.isCurated(currency));
const findCurrency = registry.currency;
const nativeCurrency = registry.nativeCurrency;

describe('currency registry', () => {
  it('has unique ids following <SYMBOL>-<network>, fiat by code', () => {
    const ids = CURRENCIES.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const currency of CURRENCIES) {
      expect(currency.id).toBe(
        currency.network === 'fiat' ? currency.symbol : `${currency.symbol}-${currency.network}`,
      );
    }
  });

  it('offers USDC and USDT on all 8 networks, USDT0 on arbitrum-one, optimism and matic', () => {
    expect(NETWORKS).toHaveLength(8);
    for (const network of NETWORKS) {
      expect(findCurrency(`USDC-${network.id}`)?.chainId).toBe(network.chainId);
      expect(findCurrency(`USDT-${network.id}`)?.chainId).toBe(network.chainId);
    }
    const usdt0 = CURRENCIES.filter((c) => c.symbol === 'USDT0').map((c) => c.network);
    expect(usdt0).toEqual(['arbitrum-one', 'optimism', 'matic']);
    expect(findCurrency('FAU-sepolia')?.decimals).toBe(18);
  });

  it('keeps the 18 decimals of the Binance-peg stablecoins', () => {
    expect(findCurrency('USDC-bsc')?.decimals).toBe(18);
    expect(findCurrency('USDT-bsc')?.decimals).toBe(18);
    expect(findCurrency('USDC-mainnet')?.decimals).toBe(6);
  });

  it('checksums every EVM token address', () => {
    for (const currency of CURRENCIES.filter((c) => c.type === 'ERC20')) {
      expect(currency.address).toBe(getAddress(currency.address));
      expect(currency.hash).toBe(currency.address);
    }
  });

  it("computes Request's currency hashes for fiat and natives (contracts.md §3.3, §9)", () => {
    expect(findCurrency('USD')?.hash).toBe('0x775eb53d00dd0acd3ec1696472105d579b9b386b');
    expect(findCurrency('EUR')?.hash).toBe('0x17b4158805772ced11225e77339f90beb5aae968');
    expect(findCurrency('GBP')?.hash).toBe('0x013f29832cd6525c4c6df81c2aae8032a1ff2db2');
    expect(findCurrency('CNY')?.hash).toBe('0x66710cc1372861ec5d5537c075b527b7b3c63c5f');
    expect(findCurrency('JPY')?.hash).toBe('0xf68fb12aa78e5c2b3eebd71441a990cd5757055c');
    expect(nativeCurrency('mainnet').hash).toBe('0xf5af88e117747e87fc5929f2ff87221b1447652e');
    expect(nativeCurrency('base').hash).toMatch(/^0xb678b03f.*3b08$/);
    expect(nativeCurrency('optimism').hash).toMatch(/^0x058fa190.*fff3$/);
    expect(nativeCurrency('arbitrum-one').hash).toMatch(/^0x0ee88324.*b1e5$/);
    expect(nativeCurrency('matic').hash).toMatch(/^0x23c7fe5a.*dbf0$/);
    expect(nativeCurrency('bsc').hash).toMatch(/^0x281162bd.*f025$/);
    expect(nativeCurrency('sepolia').hash).toMatch(/^0xbb354649.*5bcb$/);
    expect(requestCurrencyHash('ISO4217', 'usd')).toBe(findCurrency('USD')?.hash);
  });

  it('gives fiat the token list placeholders: network fiat, chain 0, ASCII address', () => {
    expect(findCurrency('USD')).toMatchObject({
      network: 'fiat',
      chainId: 0,
      type: 'ISO4217',
      address: '0x0000000000000000000000000000000000555344',
    });
    expect(findCurrency('JPY')?.decimals).toBe(0);
  });
});

describe('registry with overrides and the sandbox', () => {
  it('replaces token and contract addresses from config, keeping decimals', () => {
    const chains = createChainRegistry(
      testConfig({
        TOKENS_BASE: JSON.stringify({ USDC: '0x5FbDB2315678afecb367f032d93F642f64180aa3' }),
        CONTRACTS_BASE: JSON.stringify({
          erc20FeeProxy: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
        }),
      }),
    );
    expect(chains.currency('USDC-base')).toMatchObject({
      address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      decimals: 6,
    });
    expect(chains.contracts('base').erc20FeeProxy).toBe(
      '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    );
    expect(chains.contracts('base').ethFeeProxy).toBe('0xd9C3889eB8DA6ce449bfFE3cd194d08A436e96f2');
    expect(chains.currencyByToken('base', '0x5fbdb2315678afecb367f032d93f642f64180aa3')?.id).toBe(
      'USDC-base',
    );
  });

  it('adds the sandbox network and its test tokens only when the sandbox runs', () => {
    expect(registry.network('sandbox')).toBeUndefined();
    expect(registry.currency('USDC-sandbox')).toBeUndefined();
    const chains = createChainRegistry(testConfig(), sandboxNetwork('http://127.0.0.1:8080'));
    expect(chains.network('sandbox')?.chainId).toBe(31337);
    expect(chains.currencies.filter((c) => c.network === 'sandbox').map((c) => c.id)).toEqual([
      'ETH-sandbox',
      'USDC-sandbox',
      'USDT-sandbox',
      'DAI-sandbox',
      'TST-sandbox',
    ]);
    expect(chains.currency('USDC-sandbox')?.address).toBe(sandboxAddresses().usdc);
    expect(chains.contracts('sandbox').multicall3).toBe(
      '0xcA11bde05977b3631167028862bE2a173976CA11',
    );
  });

  it('tells one token by network and contract, not id: USDT0 is USDT where they share one', () => {
    const of = (id: string): Currency => {
      const currency = findCurrency(id);
      if (!currency) throw new Error(`no ${id}`);
      return currency;
    };
    expect(sameToken(of('USDT0-matic'), of('USDT-matic'))).toBe(true);
    expect(sameToken(of('USDT0-arbitrum-one'), of('USDT-arbitrum-one'))).toBe(true);
    expect(sameToken(of('USDC-matic'), of('USDCn-matic'))).toBe(true);
    // Optimism's USDT0 is a contract of its own; the same symbol elsewhere is another token.
    expect(sameToken(of('USDT0-optimism'), of('USDT-optimism'))).toBe(false);
    expect(sameToken(of('USDT-matic'), of('USDT-base'))).toBe(false);
    expect(sameToken(of('ETH-base'), of('ETH-base-base'))).toBe(true);
    expect(sameToken(of('ETH-base'), of('ETH-optimism'))).toBe(false);
  });
});
