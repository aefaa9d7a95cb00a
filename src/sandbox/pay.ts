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
 * server's bridge tracker follows the transfer to its end (docs/guides/crosschain.md); then it
 * waits for the link to be paid on its own network (the bridge's fill, seen by the indexer).
 */

/** How long a cross-chain payment may take to reach the link, fill and detection included. */
const ARRIVAL_TIMEOUT_MS = 120_000;
const ARRIVAL_POLL_MS = 500;

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
  /** When paid from another chain: the link is paid on its network (it answers 409 now). */
  readonly paid?: true;
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
  await linkPaid(link, headers, intent.intentId);
  return {
    wallet: wallet.address,
    chain: input.from.chain,
    transactions: hashes,
    ...(intent.intentId !== undefined && { intentId: intent.intentId }),
    paid: true,
  };
}

/** Resolves once the link answers 409 (completed); throws after ARRIVAL_TIMEOUT_MS. */
async function linkPaid(
  link: string,
  headers: Record<string, string>,
  intentId: string | undefined,
): Promise<void> {
  const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
  for (;;) {
    const answer = await getJson<{ message?: string; statusCode?: number }>(link, headers, [409]);
    if (answer.statusCode === 409) return;
    if (Date.now() > deadline) {
      throw new Error(
        `the bridge deposit was sent and recorded (intent ${intentId ?? 'unknown'}), but the link was not paid within ${ARRIVAL_TIMEOUT_MS / 1000} s: the server's log says what its bridge relayer and tracker did with it`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, ARRIVAL_POLL_MS));
  }
}
