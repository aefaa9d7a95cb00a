import type { PaymentNetworkId } from './networks.ts';

/**
 * Where the Request payment contracts live (contracts.md §1, §2, §10.1). Addresses are facts;
 * config may override them per network (`CONTRACTS_<NETWORK>`), which is how a local chain
 * stands in for a real one in tests.
 */
export interface ContractSet {
  /** ERC20FeeProxy 0.2.0: `transferFromWithReferenceAndFee`. EVM checksummed, base58 on Tron. */
  readonly erc20FeeProxy: string | null;
  /** EthereumFeeProxy 0.2.0: native payments. */
  readonly ethFeeProxy: string | null;
  /**
   * The batch contract: BatchConversionPayments 0.1.0 (`batchPayments`) on EVM networks;
   * on Tron, ERC20BatchPayments (`batchERC20PaymentsWithReference` and its multi-token form).
   */
  readonly batchPayments: string | null;
  /** Multicall3, for one-round-trip reads. */
  readonly multicall3: string | null;
}

export const CONTRACT_KEYS = [
  'erc20FeeProxy',
  'ethFeeProxy',
  'batchPayments',
  'multicall3',
] as const;

const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';
const BATCH = '0x3cF63891928B8CeebB81C95426600a18cd59C03f';
const ETH_FEE_PROXY = '0xfCFBcfc4f5A421089e3Df45455F7f4985FE2D6a8';

export const DEPLOYED_CONTRACTS: Readonly<Record<PaymentNetworkId, ContractSet>> = {
  mainnet: {
    erc20FeeProxy: '0x370DE27fdb7D1Ff1e1BaA7D11c5820a324Cf623C',
    ethFeeProxy: ETH_FEE_PROXY,
    batchPayments: BATCH,
    multicall3: MULTICALL3,
  },
  'arbitrum-one': {
    erc20FeeProxy: '0x0DfbEe143b42B41eFC5A6F87bFD1fFC78c2f0aC9',
    ethFeeProxy: ETH_FEE_PROXY,
    batchPayments: BATCH,
    multicall3: MULTICALL3,
  },
  optimism: {
    erc20FeeProxy: '0x399F5EE127ce7432E4921a61b8CF52b0af52cbfE',
    ethFeeProxy: '0xe11BF2fDA23bF0A98365e1A4c04A87C9339e8687',
    batchPayments: BATCH,
    multicall3: MULTICALL3,
  },
  base: {
    erc20FeeProxy: '0x1892196E80C4c17ea5100Da765Ab48c1fE2Fb814',
    ethFeeProxy: '0xd9C3889eB8DA6ce449bfFE3cd194d08A436e96f2',
    batchPayments: '0x1aF3f22685AcdDc788B3730ed415912d8f654420',
    multicall3: MULTICALL3,
  },
  matic: {
    erc20FeeProxy: '0x0DfbEe143b42B41eFC5A6F87bFD1fFC78c2f0aC9',
    ethFeeProxy: ETH_FEE_PROXY,
    batchPayments: BATCH,
    multicall3: MULTICALL3,
  },
  bsc: {
    erc20FeeProxy: '0x0DfbEe143b42B41eFC5A6F87bFD1fFC78c2f0aC9',
    ethFeeProxy: ETH_FEE_PROXY,
    batchPayments: BATCH,
    multicall3: MULTICALL3,
  },
  tron: {
    erc20FeeProxy: 'TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd',
    ethFeeProxy: null,
    // ERC20BatchPayments (contracts.md §8), not BatchConversionPayments: its own two functions.
    batchPayments: 'TRZbXXuLd3HW5utzVysA3rpLgU7sVBrd1D',
    multicall3: null,
  },
  sepolia: {
    erc20FeeProxy: '0x399F5EE127ce7432E4921a61b8CF52b0af52cbfE',
    ethFeeProxy: '0xe11BF2fDA23bF0A98365e1A4c04A87C9339e8687',
    batchPayments: '0x67818703c92580c0e106e401F253E8A410A66f8B',
    multicall3: MULTICALL3,
  },
};

export { MULTICALL3 as MULTICALL3_ADDRESS };
