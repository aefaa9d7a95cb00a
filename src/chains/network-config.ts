import type { ContractSet } from './contracts.ts';
import { isSandboxNetwork, type NetworkId, type PaymentNetworkId } from './networks.ts';

/** What configuration says about one real network (`RPC_URL_<NETWORK>` and the like). */
export interface NetworkConfig {
  /** JSON-RPC (EVM) or full-node HTTP (Tron) endpoint; null when the network has none configured. */
  readonly rpcUrl: string | null;
  readonly confirmations: number;
  /** Contract addresses that replace the deployed ones (`CONTRACTS_<NETWORK>`, JSON). */
  readonly contracts: Partial<ContractSet>;
  /** Token addresses by symbol that replace the known ones (`TOKENS_<NETWORK>`, JSON). */
  readonly tokens: Readonly<Record<string, string>>;
  /**
   * `EXPLORER_TX_URL_<NETWORK>`: the transaction-page template (`{txHash}` stands for the hash)
   * that webhooks link to; null turns the link off (`none`), undefined keeps the known one.
   */
  readonly explorerTxUrl?: string | null;
}

export type NetworkConfigs = Readonly<Record<PaymentNetworkId, NetworkConfig>>;

/** A network's configuration; none for the sandbox's chains, which configure themselves. */
export function networkConfig(configs: NetworkConfigs, id: NetworkId): NetworkConfig | undefined {
  return isSandboxNetwork(id) ? undefined : configs[id];
}
