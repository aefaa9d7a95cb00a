import { type Address, type Chain, type Client, createClient, custom } from 'viem';
import { requestAddresses, sendTransaction, waitForTransactionReceipt } from 'viem/actions';
import type { WalletChoice } from '../../../web/eip6963.ts';
import type { EvmCall } from '../calldata.ts';
import type { NetworkFacts } from '../config.ts';
import type { PayContext } from '../context.ts';
import { connectingScreen } from '../screens.ts';
import { chainOf } from '../wallet/evm.ts';
import { Problem } from '../wallet/problems.ts';

/**
 * What paying from another chain shares, a link's (pay.ts) and a multicall payout's
 * (multicall.ts): connecting the wallet, the source network, the screens' choices, sending and
 * waiting for a transaction, and how long a quote must still hold to be sent.
 */

const RECEIPT_POLL_MS = 1_000;
/** A quote with less than this left (seconds) is not sent: a block may take that long. */
const QUOTE_MARGIN_S = 10;
/** New routes asked for in one attempt before giving up (they keep expiring, or moving). */
export const MAX_ROUTES = 3;

export const REFUSED =
  'The network refused the transaction, so nothing was sent to the bridge. Try again; if it keeps failing, contact the merchant.';

/** Whether a quote expiring at `expiresAt` (Unix seconds) may still be sent. */
export const fresh = (expiresAt: number) => expiresAt - QUOTE_MARGIN_S > Date.now() / 1000;

/** The wallet connected on the page's network: its client and account. */
export async function connect(
  context: PayContext,
  wallet: WalletChoice,
): Promise<{ client: Client; account: Address }> {
  context.show(connectingScreen(wallet.name));
  const transport = custom(wallet.provider, { retryCount: 0 });
  const client = createClient({
    chain: chainOf(context.network),
    transport,
    pollingInterval: RECEIPT_POLL_MS,
  });
  const [account] = await requestAddresses(client);
  if (!account) throw new Problem('Your wallet shared no account. Unlock it, then try again.');
  return { client, account };
}

/** The source network: its id (`arbitrum-one`) and its facts. */
export function networkOf(context: PayContext, chain: string): [string, NetworkFacts] {
  const found = Object.entries(context.config.networks).find(
    ([, n]) => n.intentChain === chain && n.kind === 'evm',
  );
  if (!found) throw new Problem(`This page cannot pay from ${chain}.`);
  return found;
}

/** Resolves with what the payer chose on a screen; null when they went back. */
export function choose<T>(
  show: (pick: (value: T | null) => void) => HTMLElement,
  context: PayContext,
) {
  return new Promise<T | null>((resolve) => context.show(show(resolve)));
}

/** Back to the summary, nothing sent. */
export function back(context: PayContext): null {
  context.retry('');
  return null;
}

/** Keeps `[data-field="quote-expires"]` counting down; returns what stops it. */
export function tickQuote(text: () => string): () => void {
  const ticker = setInterval(() => {
    const field = document.querySelector('[data-field="quote-expires"]');
    if (field) field.textContent = text();
  }, 1_000);
  return () => clearInterval(ticker);
}

export interface Send {
  one(call: EvmCall): Promise<`0x${string}`>;
  mined(hash: `0x${string}`): Promise<boolean>;
}

export function sender(client: Client, chain: Chain, account: Address): Send {
  return {
    one: (call) =>
      sendTransaction(client, {
        account,
        chain,
        to: call.to,
        data: call.data,
        value: BigInt(call.value),
      }),
    mined: async (hash) => (await waitForTransactionReceipt(client, { hash })).status === 'success',
  };
}
