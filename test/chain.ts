import {
  type Account,
  type Address,
  createWalletClient,
  custom,
  getAddress,
  type Hex,
  type Transport,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEPLOYED_CONTRACTS } from '../src/chains/contracts.ts';
import {
  NETWORKS,
  type NetworkId,
  networkEnvSuffix,
  type PaymentNetworkId,
} from '../src/chains/networks.ts';
import { providerTransport } from '../src/chains/provider-transport.ts';
import { erc20Abi } from '../src/payments/abis.ts';
import type { EvmTransaction } from '../src/payments/transactions.ts';
import { type LocalChain, startLocalChain } from '../src/sandbox/chain.ts';

/**
 * A local EVM with the real Request contracts standing in for one of the eight networks: it
 * takes the network's chain id, and config points the network's USDC (6 decimals), USDT (the
 * no-return token, 6 decimals) and DAI (18 decimals) and the payment contracts at the local
 * deployments (the recurring payment proxy too, where the network has one).
 */
export interface StandIn {
  readonly chain: LocalChain;
  readonly env: Record<string, string>;
  readonly transports: Partial<Record<NetworkId, Transport>>;
}

export async function standIn(
  network: PaymentNetworkId,
  options: { walletCount?: number } = {},
): Promise<StandIn> {
  const info = NETWORKS.find((n) => n.id === network);
  if (info?.kind !== 'evm') throw new Error(`${network} is not an EVM network`);
  const chain = await startLocalChain({ chainId: info.chainId, ...options });
  const suffix = networkEnvSuffix(network);
  const a = chain.addresses;
  return {
    chain,
    env: {
      [`TOKENS_${suffix}`]: JSON.stringify({ USDC: a.usdc, USDT: a.usdt, DAI: a.dai }),
      [`CONTRACTS_${suffix}`]: JSON.stringify({
        erc20FeeProxy: a.erc20FeeProxy,
        ethFeeProxy: a.ethFeeProxy,
        batchPayments: a.batchPayments,
        multicall3: a.multicall3,
        erc20ConversionProxy: a.erc20ConversionProxy,
        ethConversionProxy: a.ethConversionProxy,
        chainlinkConversionPath: a.chainlinkConversionPath,
        // Where the real network has no recurring proxy (Optimism), neither does its stand-in.
        ...(DEPLOYED_CONTRACTS[network].recurringPaymentProxy && {
          recurringPaymentProxy: a.recurringPaymentProxy,
        }),
        // Where the real network has commerce payments (Base), so does its stand-in.
        ...(DEPLOYED_CONTRACTS[network].commerceEscrowWrapper && {
          commerceEscrowWrapper: a.commerceEscrowWrapper,
          authCaptureEscrow: a.authCaptureEscrow,
          preApprovalPaymentCollector: a.preApprovalPaymentCollector,
          operatorRefundCollector: a.operatorRefundCollector,
        }),
      }),
    },
    // Followed as a WebSocket RPC is: the chain in process tells of its new heads.
    transports: { [network]: providerTransport(chain.provider) },
  };
}

export function accountOf(chain: LocalChain, index: number): Account {
  const wallet = chain.wallets[index];
  if (!wallet) throw new Error(`no wallet ${index}`);
  return privateKeyToAccount(wallet.privateKey);
}

/** Sends each transaction as a wallet would, in order, and fails on any revert. */
export async function sendAll(
  chain: LocalChain,
  account: Account,
  transactions: readonly EvmTransaction[],
): Promise<Hex[]> {
  const wallet = createWalletClient({
    account,
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
  const hashes: Hex[] = [];
  for (const tx of transactions) {
    if (tx.chainId !== chain.chainId)
      throw new Error(`transaction for chain ${tx.chainId} sent to ${chain.chainId}`);
    const hash = await wallet.sendTransaction({
      to: tx.to,
      data: tx.data,
      value: BigInt(tx.value),
    });
    const receipt = await chain.client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    hashes.push(hash);
  }
  return hashes;
}

/** An account's balance of the chain's test USDC, in base units. */
export function usdcBalance(chain: LocalChain, owner: Address): Promise<bigint> {
  return chain.client.readContract({
    address: getAddress(chain.addresses.usdc),
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  });
}
