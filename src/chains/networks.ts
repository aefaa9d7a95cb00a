/**
 * The payment-destination networks we serve. Network ids are Request's names (`matic`, not
 * `polygon`); chain ids are the real ones (Tron's is the 0x2b6653dc id TronLink reports).
 */

type ChainKind = 'evm' | 'tron';

/** The eight real networks payments settle on, by Request's names. */
export const PAYMENT_NETWORK_IDS = [
  'mainnet',
  'arbitrum-one',
  'optimism',
  'base',
  'matic',
  'bsc',
  'tron',
  'sepolia',
] as const;
export type PaymentNetworkId = (typeof PAYMENT_NETWORK_IDS)[number];

/** The local chains `npm start` runs: `sandbox`, and `sandbox-b` to pay it from another chain. */
export type SandboxNetworkId = 'sandbox' | 'sandbox-b';

/** A real network, or one of the local sandbox chains that `npm start` runs. */
export type NetworkId = PaymentNetworkId | SandboxNetworkId;

interface NativeCurrency {
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  /**
   * The `value` Request hashes for this native currency in conversion paths
   * (`keccak256('{"type":"eth","value":"<value>"}')`, lower-cased before hashing).
   */
  readonly hashValue: string;
}

export interface Network {
  readonly id: NetworkId;
  readonly name: string;
  readonly chainId: number;
  readonly kind: ChainKind;
  readonly testnet: boolean;
  readonly native: NativeCurrency;
  /**
   * Where a transaction can be seen, `{txHash}` standing for its hash; null here only for the
   * sandbox, whose page is the service's own, set where it runs. `EXPLORER_TX_URL_<NETWORK>`
   * replaces it.
   */
  readonly explorerTxUrl: string | null;
  /** Blocks to wait before a payment counts as final, unless `CONFIRMATIONS_<NETWORK>` says otherwise. */
  readonly defaultConfirmations: number;
  /**
   * The cross-chain `chain` enum value of the routing aggregator, where the network has one;
   * ours for the sandbox's chains (`SANDBOX`, `SANDBOX_B`), which the sandbox's own aggregator
   * bridges between each other only.
   */
  readonly crossChainName: string | null;
}

export const NETWORKS = [
  {
    id: 'mainnet',
    name: 'Ethereum',
    chainId: 1,
    kind: 'evm',
    testnet: false,
    native: { symbol: 'ETH', name: 'Ether', decimals: 18, hashValue: 'ETH' },
    explorerTxUrl: 'https://etherscan.io/tx/{txHash}',
    defaultConfirmations: 12,
    crossChainName: 'ETHEREUM',
  },
  {
    id: 'arbitrum-one',
    name: 'Arbitrum One',
    chainId: 42161,
    kind: 'evm',
    testnet: false,
    native: { symbol: 'ETH', name: 'Ether', decimals: 18, hashValue: 'AETH' },
    explorerTxUrl: 'https://arbiscan.io/tx/{txHash}',
    defaultConfirmations: 20,
    crossChainName: 'ARBITRUM',
  },
  {
    id: 'optimism',
    name: 'Optimism',
    chainId: 10,
    kind: 'evm',
    testnet: false,
    native: { symbol: 'ETH', name: 'Ether', decimals: 18, hashValue: 'ETH-optimism' },
    explorerTxUrl: 'https://optimistic.etherscan.io/tx/{txHash}',
    defaultConfirmations: 10,
    crossChainName: 'OPTIMISM',
  },
  {
    id: 'base',
    name: 'Base',
    chainId: 8453,
    kind: 'evm',
    testnet: false,
    native: { symbol: 'ETH', name: 'Ether', decimals: 18, hashValue: 'ETH-base' },
    explorerTxUrl: 'https://basescan.org/tx/{txHash}',
    defaultConfirmations: 10,
    crossChainName: 'BASE',
  },
  {
    id: 'matic',
    name: 'Polygon',
    chainId: 137,
    kind: 'evm',
    testnet: false,
    native: { symbol: 'POL', name: 'POL', decimals: 18, hashValue: 'MATIC' },
    explorerTxUrl: 'https://polygonscan.com/tx/{txHash}',
    defaultConfirmations: 64,
    crossChainName: 'POLYGON',
  },
  {
    id: 'bsc',
    name: 'BNB Smart Chain',
    chainId: 56,
    kind: 'evm',
    testnet: false,
    native: { symbol: 'BNB', name: 'BNB', decimals: 18, hashValue: 'BNB' },
    explorerTxUrl: 'https://bscscan.com/tx/{txHash}',
    defaultConfirmations: 15,
    crossChainName: 'BNB',
  },
  {
    id: 'tron',
    name: 'Tron',
    chainId: 728126428,
    kind: 'tron',
    testnet: false,
    native: { symbol: 'TRX', name: 'Tronix', decimals: 6, hashValue: 'TRX' },
    explorerTxUrl: 'https://tronscan.org/#/transaction/{txHash}',
    defaultConfirmations: 19,
    crossChainName: null,
  },
  {
    id: 'sepolia',
    name: 'Sepolia',
    chainId: 11155111,
    kind: 'evm',
    testnet: true,
    native: { symbol: 'ETH', name: 'Sepolia Ether', decimals: 18, hashValue: 'ETH-sepolia' },
    explorerTxUrl: 'https://sepolia.etherscan.io/tx/{txHash}',
    defaultConfirmations: 3,
    crossChainName: null,
  },
] as const satisfies readonly (Network & { readonly id: PaymentNetworkId })[];

/**
 * A local chain that `npm start` runs for new users: the Request contracts and test tokens,
 * deployed at fixed addresses, with funded test wallets. Never a real network.
 */
export const SANDBOX_NETWORK = {
  id: 'sandbox',
  name: 'Sandbox (local chain)',
  chainId: 31337,
  kind: 'evm',
  testnet: true,
  native: { symbol: 'ETH', name: 'Sandbox Ether', decimals: 18, hashValue: 'ETH-sandbox' },
  // Set where it runs, to the service's own page of a transaction (sandbox/network.ts).
  explorerTxUrl: null,
  // Nothing reorganises a local chain that mines one block per transaction.
  defaultConfirmations: 0,
  crossChainName: 'SANDBOX',
} as const satisfies Network;

/**
 * The sandbox's second local chain, run beside the first when the sandbox's own routing
 * aggregator and bridge run (no `LIFI_URL`, the embedded database): a payer pays a `sandbox`
 * link from here, or the other way round, through the local Across bridge.
 */
export const SANDBOX_B_NETWORK = {
  id: 'sandbox-b',
  name: 'Sandbox B (local chain)',
  chainId: 31338,
  kind: 'evm',
  testnet: true,
  native: { symbol: 'ETH', name: 'Sandbox B Ether', decimals: 18, hashValue: 'ETH-sandbox-b' },
  explorerTxUrl: null,
  defaultConfirmations: 0,
  crossChainName: 'SANDBOX_B',
} as const satisfies Network;

export const SANDBOX_NETWORKS = [SANDBOX_NETWORK, SANDBOX_B_NETWORK] as const;

/** Whether the network is one of the sandbox's local chains (never a real network). */
export function isSandboxNetwork(id: string): id is SandboxNetworkId {
  return SANDBOX_NETWORKS.some((network) => network.id === id);
}

export const TRON_CHAIN_ID = 728126428;

/**
 * The `chain` a payment intent names the network by: the aggregator's enum value where the
 * network has one (the reference's), and ours, `SANDBOX` and `SANDBOX_B`, for the sandbox's
 * local chains.
 */
export function intentChainOf(network: Network): string | null {
  return network.crossChainName;
}

/** `arbitrum-one` → `ARBITRUM_ONE`: the suffix of the per-network environment variables. */
export function networkEnvSuffix(id: string): string {
  return id.toUpperCase().replaceAll('-', '_');
}
