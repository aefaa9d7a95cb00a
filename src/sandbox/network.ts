import { SAFE_1_4_1 } from '../chains/contracts.ts';
import { SANDBOX_NETWORK } from '../chains/networks.ts';
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
 * The sandbox chain as the chain registry serves it, every address known before it starts. Its
 * explorer is our own page of a transaction at `baseUrl` (routes/get-transaction.ts), so the
 * `explorer` of its webhooks is a URL that answers, as on any other network.
 */
export function sandboxNetwork(baseUrl: string): LocalNetwork {
  const addresses = sandboxAddresses();
  return {
    network: { ...SANDBOX_NETWORK, explorerTxUrl: sandboxExplorerTemplate(baseUrl) },
    contracts: {
      erc20FeeProxy: addresses.erc20FeeProxy,
      ethFeeProxy: addresses.ethFeeProxy,
      batchPayments: addresses.batchPayments,
      multicall3: addresses.multicall3,
      erc20ConversionProxy: addresses.erc20ConversionProxy,
      ethConversionProxy: addresses.ethConversionProxy,
      chainlinkConversionPath: addresses.chainlinkConversionPath,
      recurringPaymentProxy: addresses.recurringPaymentProxy,
      // Installed at their canonical addresses when the chain starts (safe.ts).
      ...SAFE_1_4_1,
    },
    tokens: sandboxTokenSpecs(),
  };
}

/** Where the sandbox's transactions are shown: `{txHash}` stands for the hash. */
function sandboxExplorerTemplate(baseUrl: string): string {
  return `${baseUrl}/sandbox/tx/{txHash}`;
}
