import { getAddress, keccak256, stringToHex } from 'viem';
import type { Network, NetworkId } from './networks.ts';
import type { TokenSpec } from './tokens.ts';

/**
 * The curated currencies: stablecoins and natives on the payment networks, and the fiat codes
 * invoices may be written in. Ids follow `<SYMBOL>-<network>`; the spellings of Request's token
 * list (`USDCn-matic`, `fUSDC-sepolia`, `ETH-sepolia-sepolia`, …) resolve as aliases.
 */

type CurrencyType = 'ERC20' | 'ETH' | 'TRC20' | 'ISO4217';

/** A currency as `GET /v2/currencies` and Request's token list write it, on any network. */
export interface CurrencyFacts {
  readonly id: string;
  readonly name: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly address: string;
  readonly network: string;
  readonly type: CurrencyType;
  readonly hash: string;
  readonly chainId: number;
}

/**
 * A currency on a network this server serves (or fiat): what requests are written in. Token
 * addresses are checksummed on EVM networks, base58 on Tron; a native's `address` is Request's
 * currency hash, a fiat's the token list's placeholder (its code in ASCII); chain id 0 for fiat.
 */
export interface Currency extends CurrencyFacts {
  /** A network id, or `fiat` for ISO 4217 codes. */
  readonly network: NetworkId | 'fiat';
}

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

/**
 * Whether two currencies are one token: the same network and contract, whatever their ids.
 * USDT0 and USDT share a contract on arbitrum-one and matic, where a destination's token is
 * named USDT (`currencyByToken`) and a client may name either.
 */
export function sameToken(a: Currency, b: Currency): boolean {
  if (a.network !== b.network || a.type !== b.type) return false;
  // EVM addresses compare without their checksum's case; Tron's base58 is case-sensitive.
  return a.type === 'TRC20'
    ? a.address === b.address
    : a.address.toLowerCase() === b.address.toLowerCase();
}
