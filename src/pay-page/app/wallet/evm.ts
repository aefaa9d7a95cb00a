import { type Address, type Chain, type Client, createClient, custom, defineChain } from 'viem';
import {
  addChain,
  getChainId,
  requestAddresses,
  sendTransaction,
  switchChain,
  waitForTransactionReceipt,
} from 'viem/actions';
import type { WalletChoice } from '../../../web/eip6963.ts';
import type { NetworkFacts } from '../config.ts';
import type { PayContext } from '../context.ts';
import { connectingScreen, switchingScreen } from '../screens.ts';
import { batchOutcome, offersAtomic, sendAtomic } from './atomic.ts';
import { assertPayoutWallet } from './payout.ts';
import { codeOf, Problem } from './problems.ts';
import { payThroughAccount } from './smart-account.ts';
import { runSteps, type Sender } from './steps.ts';
import { reporter } from './telemetry.ts';

/**
 * Paying from an EVM wallet: connect, get onto the link's chain (switch, or add the sandbox
 * chain the wallet cannot know), then send the steps `/pay` returns (steps.ts): all at once
 * when the wallet batches atomically (atomic.ts), else one at a time.
 */

const RECEIPT_POLL_MS = 1_000;

export function chainOf(network: NetworkFacts): Chain {
  return defineChain({
    id: network.chainId,
    name: network.name,
    nativeCurrency: network.native,
    rpcUrls: { default: { http: network.rpcUrl ? [network.rpcUrl] : [] } },
  });
}

/** Onto the link's chain: switch, or add it first when the wallet cannot know it (sandbox). */
export async function ensureChain(
  context: Pick<PayContext, 'network' | 'show'>,
  client: Client,
  chain: Chain,
): Promise<void> {
  if ((await getChainId(client)) === chain.id) return;
  const name = context.network.name;
  context.show(switchingScreen(name));
  try {
    await switchChain(client, { id: chain.id });
  } catch (error) {
    const code = codeOf(error);
    if (code === 4001) {
      throw new Problem(
        `Your wallet stayed on another network. To pay, allow the switch to ${name}.`,
      );
    }
    if (code !== 4902 || !context.network.rpcUrl) throw error;
    await addChain(client, { chain });
    await switchChain(client, { id: chain.id });
  }
  if ((await getChainId(client)) !== chain.id) {
    throw new Problem(
      `Your wallet is still on another network. Switch it to ${name}, then try again.`,
    );
  }
}

export async function payWithEvm(context: PayContext, wallet: WalletChoice): Promise<string[]> {
  context.show(connectingScreen(wallet.name));
  const chain = chainOf(context.network);
  const transport = custom(wallet.provider, { retryCount: 0 });
  // Only the actions used, not the decorated clients: a fraction of viem's weight.
  const client = createClient({ chain, transport, pollingInterval: RECEIPT_POLL_MS });
  // A wallet may share its smart account first and the owner EOA that holds its tokens after.
  const [account, ...owners] = await requestAddresses(client);
  if (!account) throw new Problem('Your wallet shared no account. Unlock it, then try again.');
  assertPayoutWallet(context.display, account);
  const report = reporter(context, wallet.rdns, account);
  report('wallet_connected');
  await ensureChain(context, client, chain);
  const sender = evmSender(client, chain, account);
  const paid = await payThroughAccount(
    context,
    wallet,
    client,
    { account, owners },
    report,
    sender,
  );
  return paid ?? runSteps(context, wallet, account, report, sender);
}

function evmSender(client: Client, chain: Chain, account: Address): Sender {
  return {
    async one(call) {
      const hash = await sendTransaction(client, {
        account,
        chain,
        to: call.to,
        data: call.data,
        value: BigInt(call.value),
      });
      return {
        hash,
        mined: async () => (await waitForTransactionReceipt(client, { hash })).status === 'success',
      };
    },
    atomic: () => offersAtomic(client, account, chain.id),
    async all(calls) {
      const id = await sendAtomic(client, account, chain.id, calls);
      return { id, outcome: () => batchOutcome(client, id) };
    },
  };
}
