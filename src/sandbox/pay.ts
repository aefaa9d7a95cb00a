import { createWalletClient, defineChain, type Hex, http, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { SANDBOX_NETWORK } from '../chains/networks.ts';
import type { EvmTransaction } from '../payments/transactions.ts';
import { sandboxWallets } from './addresses.ts';

/**
 * `payreq sandbox pay`: what a payer's wallet does, scripted. Fetches the link's calldata for
 * test wallet n from the running server, then signs and sends each transaction to the
 * sandbox's JSON-RPC, waiting for every receipt.
 */
export async function sandboxPay(input: {
  baseUrl: string;
  token: string;
  wallet: number;
  apiKey: string;
}): Promise<{ wallet: string; transactions: Hex[] }> {
  const wallet = sandboxWallets()[input.wallet];
  if (!Number.isInteger(input.wallet) || !wallet) {
    throw new Error(
      `--wallet must be a test wallet number from 0 to ${sandboxWallets().length - 1}`,
    );
  }
  const response = await fetch(
    `${input.baseUrl}/v2/secure-payments/${encodeURIComponent(input.token)}/pay?wallet=${wallet.address}`,
    { headers: { 'x-api-key': input.apiKey } },
  );
  const body = (await response.json()) as {
    message?: string;
    transactions?: EvmTransaction[];
    ERC20ApprovalTransactions?: EvmTransaction[];
    batchPaymentTransaction?: EvmTransaction;
  };
  if (!response.ok)
    throw new Error(`the server answered ${response.status}: ${body.message ?? ''}`);
  const transactions = body.transactions ?? [
    ...(body.ERC20ApprovalTransactions ?? []),
    ...(body.batchPaymentTransaction ? [body.batchPaymentTransaction] : []),
  ];
  const chain = defineChain({
    id: SANDBOX_NETWORK.chainId,
    name: SANDBOX_NETWORK.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [`${input.baseUrl}/sandbox/rpc`] } },
  });
  const client = createWalletClient({
    account: privateKeyToAccount(wallet.privateKey),
    chain,
    transport: http(`${input.baseUrl}/sandbox/rpc`, { retryCount: 0 }),
  }).extend(publicActions);
  const hashes: Hex[] = [];
  for (const tx of transactions) {
    if (tx.chainId !== SANDBOX_NETWORK.chainId)
      throw new Error(`this link is not on the sandbox network (chain ${tx.chainId})`);
    const hash = await client.sendTransaction({
      to: tx.to,
      data: tx.data,
      value: BigInt(tx.value),
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    hashes.push(hash);
  }
  return { wallet: wallet.address, transactions: hashes };
}
