import { getAddress, keccak256, stringToHex } from 'viem';
import type { Network, NetworkId, PaymentNetworkId } from './networks.ts';

/**
 * The curated currencies: stablecoins and natives on the payment networks, and the fiat codes
 * invoices may be written in. Ids follow `<SYMBOL>-<network>`; the spellings of Request's token
 * list (`USDCn-matic`, `fUSDC-sepolia`, `ETH-sepolia-sepolia`, …) resolve as aliases.
 */

export type CurrencyType = 'ERC20' | 'ETH' | 'TRC20' | 'ISO4217';

export interface Currency {
  readonly id: string;
  readonly name: string;
  readonly symbol: string;
  readonly decimals: number;
  /** Token contract (checksummed EVM, base58 on Tron); for natives and fiat, the currency hash. */
  readonly address: string;
  /** A network id, or `fiat` for ISO 4217 codes. */
  readonly network: NetworkId | 'fiat';
  readonly type: CurrencyType;
  /** Request's currency hash: the token address, or a keccak-derived id for native and fiat. */
  readonly hash: string;
  /** 0 for fiat. */
  readonly chainId: number;
}

export interface TokenSpec {
  readonly symbol: string;
  readonly name: string;
  readonly address: string;
  readonly decimals: number;
  readonly aliases?: readonly string[];
}

const USDC = 'USD Coin';
const USDT = 'Tether USD';
const USDT0 = 'USD₮0';
const DAI = 'Dai Stablecoin';

/** Addresses and decimals: contracts.md §8-9. BSC's Binance-peg stablecoins have 18 decimals. */
export const TOKEN_SPECS: Readonly<Record<PaymentNetworkId, readonly TokenSpec[]>> = {
  mainnet: [
    {
      symbol: 'USDC',
      name: USDC,
      address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      decimals: 6,
    },
    {
      symbol: 'USDT',
      name: USDT,
      address: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      decimals: 6,
    },
    {
      symbol: 'DAI',
      name: DAI,
      address: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
      decimals: 18,
    },
  ],
  'arbitrum-one': [
    {
      symbol: 'USDC',
      name: USDC,
      address: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
      decimals: 6,
    },
    {
      symbol: 'USDT',
      name: USDT,
      address: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9',
      decimals: 6,
    },
    {
      symbol: 'USDT0',
      name: USDT0,
      address: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9',
      decimals: 6,
    },
    {
      symbol: 'DAI',
      name: DAI,
      address: '0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1',
      decimals: 18,
    },
  ],
  optimism: [
    {
      symbol: 'USDC',
      name: USDC,
      address: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85',
      decimals: 6,
      aliases: ['USDCn-optimism'],
    },
    {
      symbol: 'USDT',
      name: USDT,
      address: '0x94b008aA00579c1307B0EF2c499aD98a8ce58e58',
      decimals: 6,
    },
    {
      symbol: 'USDT0',
      name: USDT0,
      address: '0x01bFF41798a0BcF287b996046Ca68b395DbC1071',
      decimals: 6,
    },
    {
      symbol: 'DAI',
      name: DAI,
      address: '0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1',
      decimals: 18,
    },
  ],
  base: [
    {
      symbol: 'USDC',
      name: USDC,
      address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      decimals: 6,
    },
    {
      symbol: 'USDT',
      name: USDT,
      address: '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2',
      decimals: 6,
    },
    {
      symbol: 'DAI',
      name: DAI,
      address: '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb',
      decimals: 18,
    },
  ],
  matic: [
    {
      symbol: 'USDC',
      name: USDC,
      address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
      decimals: 6,
      aliases: ['USDCn-matic'],
    },
    {
      symbol: 'USDT',
      name: USDT,
      address: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
      decimals: 6,
    },
    {
      symbol: 'USDT0',
      name: USDT0,
      address: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
      decimals: 6,
    },
    {
      symbol: 'DAI',
      name: DAI,
      address: '0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063',
      decimals: 18,
    },
  ],
  bsc: [
    {
      symbol: 'USDC',
      name: USDC,
      address: '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d',
      decimals: 18,
    },
    {
      symbol: 'USDT',
      name: USDT,
      address: '0x55d398326f99059fF775485246999027B3197955',
      decimals: 18,
    },
    {
      symbol: 'DAI',
      name: DAI,
      address: '0x1AF3F329e8BE154074D8769D1FFa4eE058B1DBc3',
      decimals: 18,
    },
  ],
  tron: [
    { symbol: 'USDC', name: USDC, address: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', decimals: 6 },
    { symbol: 'USDT', name: USDT, address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', decimals: 6 },
  ],
  sepolia: [
    {
      symbol: 'FAU',
      name: 'Faucet Token',
      address: '0x370DE27fdb7D1Ff1e1BaA7D11c5820a324Cf623C',
      decimals: 18,
    },
    {
      symbol: 'USDC',
      name: USDC,
      address: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
      decimals: 6,
      aliases: ['fUSDC-sepolia'],
    },
    {
      symbol: 'USDT',
      name: USDT,
      address: '0xF046b3CA5ae2879c6bAcC4D42fAF363eE8379F78',
      decimals: 6,
      aliases: ['fUSDT-sepolia'],
    },
  ],
};

/** Extra ids the token list uses for natives (it repeats the network, or keeps old symbols). */
const NATIVE_ALIASES: Readonly<Partial<Record<NetworkId, readonly string[]>>> = {
  'arbitrum-one': ['AETH-arbitrum-one', 'ETH-arbitrum-one-arbitrum-one'],
  optimism: ['ETH-optimism-optimism'],
  base: ['ETH-base-base'],
  matic: ['MATIC-matic'],
  sepolia: ['ETH-sepolia-sepolia'],
};

const FIAT: readonly { code: string; name: string; decimals: number }[] = [
  { code: 'USD', name: 'US Dollar', decimals: 2 },
  { code: 'EUR', name: 'Euro', decimals: 2 },
  { code: 'GBP', name: 'Pound Sterling', decimals: 2 },
  { code: 'CNY', name: 'Yuan Renminbi', decimals: 2 },
  { code: 'JPY', name: 'Yen', decimals: 0 },
];

/** Request's hash for a non-token currency: the last 20 bytes of keccak256 of its JSON, lower-cased. */
export function requestCurrencyHash(type: 'ETH' | 'ISO4217', value: string): `0x${string}` {
  const json = JSON.stringify({ type, value }).toLowerCase();
  return `0x${keccak256(stringToHex(json)).slice(-40)}`;
}

/** The token list's placeholder address for a fiat code: its ASCII bytes, left-padded to 20 bytes. */
function fiatAddress(code: string): string {
  return `0x${Buffer.from(code, 'ascii').toString('hex').padStart(40, '0')}`;
}

export interface CurrencyList {
  readonly all: readonly Currency[];
  /** Lower-cased ids and aliases. */
  readonly byId: ReadonlyMap<string, Currency>;
}

/**
 * Every currency of the given networks plus fiat. `tokens` replaces token addresses per network
 * (symbol → address), keeping each token's facts (decimals, name).
 */
export function buildCurrencies(
  networks: readonly Network[],
  tokensOf: (network: Network) => readonly TokenSpec[],
): CurrencyList {
  const all: Currency[] = [];
  const byId = new Map<string, Currency>();
  const add = (currency: Currency, aliases: readonly string[] = []) => {
    all.push(currency);
    for (const id of [currency.id, ...aliases]) {
      const key = id.toLowerCase();
      if (byId.has(key)) throw new Error(`duplicate currency id ${id}`);
      byId.set(key, currency);
    }
  };

  for (const network of networks) {
    const native = network.native;
    const nativeHash = requestCurrencyHash('ETH', native.hashValue);
    add(
      {
        id: `${native.symbol}-${network.id}`,
        name: native.name,
        symbol: native.symbol,
        decimals: native.decimals,
        address: nativeHash,
        network: network.id,
        type: 'ETH',
        hash: nativeHash,
        chainId: network.chainId,
      },
      NATIVE_ALIASES[network.id],
    );
    for (const token of tokensOf(network)) {
      const address = network.kind === 'evm' ? getAddress(token.address) : token.address;
      add(
        {
          id: `${token.symbol}-${network.id}`,
          name: token.name,
          symbol: token.symbol,
          decimals: token.decimals,
          address,
          network: network.id,
          type: network.kind === 'evm' ? 'ERC20' : 'TRC20',
          hash: address,
          chainId: network.chainId,
        },
        token.aliases,
      );
    }
  }
  for (const fiat of FIAT) {
    add({
      id: fiat.code,
      name: fiat.name,
      symbol: fiat.code,
      decimals: fiat.decimals,
      address: fiatAddress(fiat.code),
      network: 'fiat',
      type: 'ISO4217',
      hash: requestCurrencyHash('ISO4217', fiat.code),
      chainId: 0,
    });
  }
  return { all, byId };
}

export function isFiat(currency: Currency): boolean {
  return currency.type === 'ISO4217';
}

export function isNative(currency: Currency): boolean {
  return currency.type === 'ETH';
}
