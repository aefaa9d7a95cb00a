import {
  BaseError,
  createWalletClient,
  defineChain,
  type Hex,
  HttpRequestError,
  http,
  publicActions,
  TimeoutError,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { SANDBOX_NETWORK } from '../chains/networks.ts';
import { type SandboxWallet, sandboxWallets } from './addresses.ts';

/**
 * What the `payreq sandbox …` commands share: they talk to the running server over HTTP (its
 * API, and the sandbox's JSON-RPC at `/sandbox/rpc`) and send transactions with test wallets.
 * Failures name the URL that failed and why: "fetch failed" alone does not tell an operator
 * which server was not there.
 */

/** How long each HTTP call (calldata, one JSON-RPC call) may take before we give up. */
const HTTP_TIMEOUT_MS = 15_000;
/** How long a sent transaction may take to be mined (the sandbox mines at once). */
const RECEIPT_TIMEOUT_MS = 60_000;

/** Test wallet n, or a usage error naming the numbers there are. */
export function testWallet(index: number, flag = '--wallet'): SandboxWallet {
  const wallet = sandboxWallets()[index];
  if (!Number.isInteger(index) || !wallet) {
    throw new Error(
      `${flag} must be a test wallet number from 0 to ${sandboxWallets().length - 1}`,
    );
  }
  return wallet;
}

/**
 * A wallet client for a test wallet on a sandbox chain's JSON-RPC (`sandbox` unless told; the
 * second chain's is at `/sandbox-b/rpc`), reads included.
 */
export function sandboxClient(
  baseUrl: string,
  wallet: SandboxWallet,
  network: {
    readonly id: string;
    readonly name: string;
    readonly chainId: number;
  } = SANDBOX_NETWORK,
) {
  const rpcUrl = `${baseUrl}/${network.id}/rpc`;
  const chain = defineChain({
    id: network.chainId,
    name: network.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const client = createWalletClient({
    account: privateKeyToAccount(wallet.privateKey),
    chain,
    transport: http(rpcUrl, { retryCount: 0, timeout: HTTP_TIMEOUT_MS }),
  }).extend(publicActions);
  return { client, rpcUrl };
}

type SandboxClient = ReturnType<typeof sandboxClient>;

/** Sends one transaction and waits for it to be mined; a revert or an RPC failure throws. */
export async function sendMined(
  { client, rpcUrl }: SandboxClient,
  tx: { readonly to: Hex; readonly data: Hex; readonly value?: bigint },
): Promise<TransactionReceipt> {
  try {
    const hash = await client.sendTransaction({ to: tx.to, data: tx.data, value: tx.value ?? 0n });
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  } catch (error) {
    throw rpcFailure(rpcUrl, error);
  }
}

/** GETs JSON; an answer that is no 2xx is an error unless its status is in `also`. */
export function getJson<T extends { message?: string }>(
  url: string,
  headers: Record<string, string>,
  also: readonly number[] = [],
): Promise<T> {
  return fetchJson<T>(url, { headers }, also);
}

/** POSTs a JSON body and reads the JSON answer; an answer that is no 2xx is an error. */
export function postJson<T extends { message?: string }>(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<T> {
  return fetchJson<T>(
    url,
    {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    },
    [],
  );
}

async function fetchJson<T extends { message?: string }>(
  url: string,
  init: RequestInit,
  also: readonly number[],
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
  } catch (error) {
    throw new Error(`could not reach ${url}: ${reason(error)}`);
  }
  const text = await response.text().catch(() => '');
  let body: T;
  try {
    body = JSON.parse(text) as T;
  } catch {
    throw new Error(`${url} answered ${response.status} without JSON: is it a payreq server?`);
  }
  if (!response.ok && !also.includes(response.status)) {
    throw new Error(`${url} answered ${response.status}: ${body.message ?? text.slice(0, 200)}`);
  }
  return body;
}

function rpcFailure(url: string, error: unknown): Error {
  if (error instanceof BaseError) {
    const http = error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError);
    if (http instanceof TimeoutError) {
      return new Error(`the sandbox JSON-RPC at ${url} did not answer in ${HTTP_TIMEOUT_MS} ms`);
    }
    if (http instanceof HttpRequestError) {
      const status = http.status ? `answered ${http.status}` : reason(http.cause);
      return new Error(`could not reach the sandbox JSON-RPC at ${url}: ${status}`);
    }
    return new Error(`the sandbox JSON-RPC at ${url} refused: ${error.shortMessage}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Why a connection failed, from what undici wraps in "fetch failed": the socket error
 * ("connect ECONNREFUSED 127.0.0.1:1") or, when several addresses were tried, their code.
 */
function reason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const { cause, code } = current as Error & { code?: unknown };
    if (!(cause instanceof Error)) {
      if (current.name === 'TimeoutError') return `no answer within ${HTTP_TIMEOUT_MS} ms`;
      return current.message || (typeof code === 'string' ? code : 'failed');
    }
    current = cause;
  }
  return error instanceof Error ? error.message : String(error);
}
