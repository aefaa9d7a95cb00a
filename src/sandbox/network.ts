import { SAFE_1_4_1 } from '../chains/contracts.ts';
import { SANDBOX_B_NETWORK, SANDBOX_NETWORK } from '../chains/networks.ts';
import type { LocalNetwork } from '../chains/registry.ts';
import type { TokenSpec } from '../chains/tokens.ts';
import { sandboxAddresses } from './addresses.ts';

/** Test tokens of the sandbox chain, at their fixed addresses (addresses.ts). */
function sandboxTokenSpecs(): TokenSpec[] {
  const addresses = sandboxAddresses();
  return [
    { symbol: 'USDC', name: 'Sandbox USD Coin', address: addresses.usdc, decimals: 6 },
    { symbol: 'USDT', name: 'Sandbox Tether USD', address: addresses.usdt, decimals: 6 },
    { symbol: 'DAI', name: 'Sandbox Dai', address: addresses.dai, decimals: 18 },
    { symbol: 'TST', name: 'Sandbox permit token', address: addresses.tst, decimals: 18 },
  ];
}

/**
 * A sandbox chain as the chain registry serves it (`sandbox` unless told), every address known
 * before it starts (each local chain deploys the same contracts at the same addresses). Its
 * explorer is our own page of a transaction at `baseUrl` (routes/get-transaction.ts), so the
 * `explorer` of its webhooks is a URL that answers, as on any other network.
 */
export function sandboxNetwork(
  baseUrl: string,
  network: typeof SANDBOX_NETWORK | typeof SANDBOX_B_NETWORK = SANDBOX_NETWORK,
): LocalNetwork {
  const addresses = sandboxAddresses();
  return {
    network: { ...network, explorerTxUrl: sandboxExplorerTemplate(baseUrl, network.id) },
    contracts: {
      erc20FeeProxy: addresses.erc20FeeProxy,
      ethFeeProxy: addresses.ethFeeProxy,
      batchPayments: addresses.batchPayments,
      multicall3: addresses.multicall3,
      erc20ConversionProxy: addresses.erc20ConversionProxy,
      ethConversionProxy: addresses.ethConversionProxy,
      chainlinkConversionPath: addresses.chainlinkConversionPath,
      recurringPaymentProxy: addresses.recurringPaymentProxy,
      // Deployed when the chain starts (chain.ts); ours, to contracts.md §5's interface.
      commerceEscrowWrapper: addresses.commerceEscrowWrapper,
      authCaptureEscrow: addresses.authCaptureEscrow,
      preApprovalPaymentCollector: addresses.preApprovalPaymentCollector,
      operatorRefundCollector: addresses.operatorRefundCollector,
      // Installed at their canonical addresses when the chain starts (safe.ts).
      ...SAFE_1_4_1,
    },
    tokens: sandboxTokenSpecs(),
  };
}

/** Where a sandbox chain's transactions are shown: `{txHash}` stands for the hash. */
function sandboxExplorerTemplate(baseUrl: string, id: string): string {
  return `${baseUrl}/${id}/tx/{txHash}`;
}

/**
 * Whether the sandbox also runs its second chain (`sandbox-b`), its own routing aggregator and
 * the local bridge's relayer, so a link is paid from another chain with nothing else running:
 * when the sandbox runs, `LIFI_URL` is not set (a configured aggregator is used as it is, and
 * the sandbox keeps to one chain) and the database is the embedded one (one process: the
 * aggregator's transfers and the relayer live in it).
 */
export function sandboxBridged(config: {
  readonly sandbox: boolean;
  readonly databaseUrl: string | null;
  readonly crosschain: { readonly urlDefaulted?: boolean };
}): boolean {
  return config.sandbox && config.databaseUrl === null && config.crosschain.urlDefaulted === true;
}

/** The sandbox chains this configuration runs, as the chain registry serves them. */
export function sandboxNetworks(config: {
  readonly sandbox: boolean;
  readonly baseUrl: string;
  readonly databaseUrl: string | null;
  readonly crosschain: { readonly urlDefaulted?: boolean };
}): LocalNetwork[] {
  if (!config.sandbox) return [];
  const first = sandboxNetwork(config.baseUrl);
  return sandboxBridged(config)
    ? [first, sandboxNetwork(config.baseUrl, SANDBOX_B_NETWORK)]
    : [first];
}
