import type { PaymentNetworkId } from './networks.ts';

/** The tokens payreq accepts on each real network, as facts: where they live and their decimals. */

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
