import type { Hex } from 'viem';
import { SANDBOX_NETWORKS } from '../chains/networks.ts';
import { contractRefusal } from '../commerce/reverts.ts';
import { getJson, postJson, sandboxClient, sendMined, testWallet } from './cli-http.ts';

/**
 * `payreq sandbox authorize`: what a buyer's wallet does on a commerce payment's page, scripted.
 * Fetches the transactions test wallet n sends to authorize the payment of `payToken` (the
 * approval of the wrapper when its allowance is short, then `authorizePayment`) from the running
 * server, sends each to the sandbox chain it is for and waits for its receipt, then hands the
 * authorization's hash to the server, which reads the receipt and answers the payment's status
 * (docs/guides/commerce.md).
 */

interface Call {
  readonly to: Hex;
  readonly data: Hex;
  readonly value: { readonly hex: Hex };
}

export interface SandboxAuthorization {
  readonly wallet: string;
  readonly transactions: Hex[];
  readonly requestId: string;
  readonly status: string;
}

export async function sandboxAuthorize(input: {
  baseUrl: string;
  payToken: string;
  wallet: number;
  apiKey: string;
}): Promise<SandboxAuthorization> {
  const wallet = testWallet(input.wallet);
  const payment = `${input.baseUrl}/v2/commerce-payments/token/${encodeURIComponent(input.payToken)}`;
  const headers = { 'x-api-key': input.apiKey };
  const view = await getJson<{ message?: string; chainId?: number }>(payment, headers);
  const network = SANDBOX_NETWORKS.find((candidate) => candidate.chainId === view.chainId);
  if (!network) {
    throw new Error(`this payment is not held on a sandbox network (chain ${view.chainId})`);
  }
  const { transactions } = await getJson<{ message?: string; transactions: Call[] }>(
    `${payment}/authorize?wallet=${wallet.address}`,
    headers,
  );
  const client = sandboxClient(input.baseUrl, wallet, network);
  const hashes: Hex[] = [];
  for (const tx of transactions) {
    const receipt = await sendMined(client, {
      to: tx.to,
      data: tx.data,
      value: BigInt(tx.value.hex),
    }).catch((error: unknown) => {
      throw refused(error);
    });
    hashes.push(receipt.transactionHash);
  }
  const authorization = hashes.at(-1);
  if (authorization === undefined) throw new Error('the server answered no transaction to send');
  const recorded = await postJson<{ message?: string; requestId: string; status: string }>(
    `${payment}/authorization`,
    headers,
    { txHash: authorization },
  );
  return {
    wallet: wallet.address,
    transactions: hashes,
    requestId: recorded.requestId,
    status: recorded.status,
  };
}

/** A send's failure, in the wrapper's own words when it refused the call. */
export function refused(error: unknown): unknown {
  const refusal = contractRefusal(error);
  if (refusal === null) return error;
  const taken = refusal.text.startsWith('PaymentAlreadyExists')
    ? ': another authorization already holds this payment reference (docs/guides/commerce.md#who-may-authorize)'
    : '';
  return new Error(`the wrapper refused the authorization: ${refusal.text}${taken}`);
}
