import type { Hex } from 'viem';
import { SANDBOX_NETWORKS } from '../chains/networks.ts';
import type { EvmTransaction } from '../payments/transactions.ts';
import { getJson, postJson, sandboxClient, sendMined, testWallet } from './cli-http.ts';

/**
 * `payreq sandbox pay`: what a payer's wallet does, scripted. Fetches the link's calldata for
 * test wallet n from the running server, then signs and sends each transaction to the JSON-RPC
 * of the sandbox chain it is for, waiting for every receipt. With `from` (`--chain`, `--token`)
 * it pays from that chain and token (`/pay?chain=&token=`): the approval and the bridge deposit
 * are sent on the source chain, and the deposit is recorded as the link's intent, so the
 * server's bridge tracker follows the transfer to its end (docs/guides/crosschain.md).
 */

interface PayAnswer {
  message?: string;
  transactions?: EvmTransaction[];
  ERC20ApprovalTransactions?: EvmTransaction[];
  batchPaymentTransaction?: EvmTransaction;
  metadata?: {
    routeType?: string;
    sourceAmount?: string;
    rawStep?: { action?: { toToken?: { symbol?: string } } };
  };
}

export interface SandboxPayment {
  readonly wallet: string;
  /** The source chain, when paid from another chain. */
  readonly chain?: string;
  readonly transactions: Hex[];
  /** The intent recording the bridge deposit, when paid from another chain. */
  readonly intentId?: string;
}

export async function sandboxPay(input: {
  baseUrl: string;
  token: string;
  wallet: number;
  apiKey: string;
  /** Pay from this chain and token (`SANDBOX_B`, `USDT`): the route through the local bridge. */
  from?: { readonly chain: string; readonly token: string } | undefined;
}): Promise<SandboxPayment> {
  const wallet = testWallet(input.wallet);
  const link = `${input.baseUrl}/v2/secure-payments/${encodeURIComponent(input.token)}`;
  const source = input.from
    ? `&chain=${encodeURIComponent(input.from.chain)}&token=${encodeURIComponent(input.from.token)}`
    : '';
  const headers = { 'x-api-key': input.apiKey };
  const body = await getJson<PayAnswer>(`${link}/pay?wallet=${wallet.address}${source}`, headers);
  const transactions = body.transactions ?? [
    ...(body.ERC20ApprovalTransactions ?? []),
    ...(body.batchPaymentTransaction ? [body.batchPaymentTransaction] : []),
  ];
  const hashes: Hex[] = [];
  for (const tx of transactions) {
    const network = SANDBOX_NETWORKS.find((n) => n.chainId === tx.chainId);
    if (!network)
      throw new Error(`this link is not paid on a sandbox network (chain ${tx.chainId})`);
    const receipt = await sendMined(sandboxClient(input.baseUrl, wallet, network), {
      ...tx,
      value: BigInt(tx.value),
    });
    hashes.push(receipt.transactionHash);
  }
  const deposit = hashes.at(-1);
  if (!input.from || body.metadata?.routeType !== 'crosschain' || deposit === undefined) {
    return { wallet: wallet.address, transactions: hashes };
  }
  // The transfer's source transaction, recorded as the link's intent: `token` is the link's
  // (what the bridge delivers on its network), `chain` the source's.
  const intent = await postJson<{ message?: string; intentId?: string }>(
    `${link}/intent`,
    headers,
    {
      chain: input.from.chain,
      token: body.metadata.rawStep?.action?.toToken?.symbol ?? '',
      txHash: deposit,
      executionKind: 'evm_cross_chain',
      payerAddress: wallet.address,
      sourceToken: input.from.token,
      ...(body.metadata.sourceAmount !== undefined && {
        sourceAmount: body.metadata.sourceAmount,
      }),
    },
  );
  return {
    wallet: wallet.address,
    chain: input.from.chain,
    transactions: hashes,
    ...(intent.intentId !== undefined && { intentId: intent.intentId }),
  };
}
