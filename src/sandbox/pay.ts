import type { Hex } from 'viem';
import { SANDBOX_NETWORK } from '../chains/networks.ts';
import type { EvmTransaction } from '../payments/transactions.ts';
import { getJson, sandboxClient, sendMined, testWallet } from './cli-http.ts';

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
  const wallet = testWallet(input.wallet);
  const payUrl = `${input.baseUrl}/v2/secure-payments/${encodeURIComponent(input.token)}/pay?wallet=${wallet.address}`;
  const body = await getJson<{
    message?: string;
    transactions?: EvmTransaction[];
    ERC20ApprovalTransactions?: EvmTransaction[];
    batchPaymentTransaction?: EvmTransaction;
  }>(payUrl, { 'x-api-key': input.apiKey });
  const transactions = body.transactions ?? [
    ...(body.ERC20ApprovalTransactions ?? []),
    ...(body.batchPaymentTransaction ? [body.batchPaymentTransaction] : []),
  ];
  const sandbox = sandboxClient(input.baseUrl, wallet);
  const hashes: Hex[] = [];
  for (const tx of transactions) {
    if (tx.chainId !== SANDBOX_NETWORK.chainId)
      throw new Error(`this link is not on the sandbox network (chain ${tx.chainId})`);
    const receipt = await sendMined(sandbox, { ...tx, value: BigInt(tx.value) });
    hashes.push(receipt.transactionHash);
  }
  return { wallet: wallet.address, transactions: hashes };
}
