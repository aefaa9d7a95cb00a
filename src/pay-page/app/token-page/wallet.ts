import { type Address, type Chain, type Client, createClient, custom } from 'viem';
import { requestAddresses, sendTransaction, waitForTransactionReceipt } from 'viem/actions';
import type { WalletChoice } from '../../../web/eip6963.ts';
import { ApiError } from '../answer.ts';
import type { NetworkFacts } from '../config.ts';
import { connectingScreen } from '../screens.ts';
import { chainOf, ensureChain } from '../wallet/evm.ts';
import { explain, Problem } from '../wallet/problems.ts';
import type { WalletCall } from './api.ts';

/**
 * The wallet steps of a page reached by a pay token (wallet code, its own chunk): connecting a
 * wallet and checking it is the wallet the page names (before asking it for anything else),
 * getting onto the chain, and sending a call and waiting for it on chain.
 */

const RECEIPT_POLL_MS = 1_000;

interface WalletPage {
  readonly network: NetworkFacts;
  show(screen: HTMLElement): void;
}

export interface Connected {
  readonly client: Client;
  readonly chain: Chain;
  readonly account: Address;
}

/**
 * Connects `wallet` and gets it onto the network; `owner` (when not null) is the only account
 * it may be: another is refused with `refusal`'s words before the wallet is asked anything else.
 */
export async function connect(
  page: WalletPage,
  wallet: WalletChoice,
  owner: string | null,
  refusal: (owner: string, account: string) => string,
): Promise<Connected> {
  page.show(connectingScreen(wallet.name));
  const chain = chainOf(page.network);
  const transport = custom(wallet.provider, { retryCount: 0 });
  const client = createClient({ chain, transport, pollingInterval: RECEIPT_POLL_MS });
  const [account] = await requestAddresses(client);
  if (!account) throw new Problem('Your wallet shared no account. Unlock it, then try again.');
  if (owner !== null && account.toLowerCase() !== owner.toLowerCase()) {
    throw new Problem(refusal(owner, account));
  }
  await ensureChain(page, client, chain);
  return { client, chain, account };
}

/** Sends `call`, then waits until it is mined; a refusal by the chain is `refused`, in words. */
export async function sendMined(
  connected: Connected,
  call: WalletCall,
  onSent: () => void,
  refused: string,
): Promise<`0x${string}`> {
  const { client, chain, account } = connected;
  const hash = await sendTransaction(client, {
    account,
    chain,
    to: call.to,
    data: call.data,
    value: BigInt(call.value.hex),
  });
  onSent();
  if ((await waitForTransactionReceipt(client, { hash })).status !== 'success') {
    throw new Problem(refused);
  }
  return hash;
}

/** Why an attempt failed, in the payer's words: the service's, or the wallet's explained. */
export function failureWords(network: NetworkFacts, error: unknown): string {
  return error instanceof ApiError
    ? `The payment service answered: ${error.message}`
    : explain(error, { network: network.name, native: network.native.symbol });
}
