import { type Address, type Chain, type Client, createClient, custom, defineChain } from 'viem';
import {
  addChain,
  getChainId,
  requestAddresses,
  sendTransaction,
  switchChain,
  waitForTransactionReceipt,
} from 'viem/actions';
import type { Calldata, EvmCall } from '../api.ts';
import type { NetworkFacts } from '../config.ts';
import type { PayContext } from '../context.ts';
import { isStale, type Quote, quoteOf, requoteScreen } from '../conversion.ts';
import { age, symbolOf } from '../format.ts';
import { connectingScreen, payingScreen, switchingScreen } from '../screens.ts';
import type { WalletChoice } from './eip6963.ts';
import { assertPayoutWallet } from './payout.ts';
import { codeOf, isRevert, Problem } from './problems.ts';
import { type Report, reporter } from './telemetry.ts';

/**
 * Paying from an EVM wallet: connect, get onto the link's chain (switch, or add the sandbox
 * chain the wallet cannot know), then run the steps `/pay` returns for this wallet one at a
 * time: approvals first, the payment last, each waited for on chain, and the calldata read
 * again after each approval (what is left depends on what the chain now says). Returns the
 * transactions sent; the page then follows the link until detection completes it.
 */

/** Approvals plus the payment; more than this means the answers are not converging. */
const MAX_STEPS = 8;
const RECEIPT_POLL_MS = 1_000;

interface Step {
  readonly kind: 'approve' | 'pay';
  readonly call: EvmCall;
}

export function chainOf(network: NetworkFacts): Chain {
  return defineChain({
    id: network.chainId,
    name: network.name,
    nativeCurrency: network.native,
    rpcUrls: { default: { http: network.rpcUrl ? [network.rpcUrl] : [] } },
  });
}

function isEvmCall(call: unknown): call is EvmCall {
  return typeof (call as Partial<EvmCall>).to === 'string';
}

/** The steps of an answer, in order; refuses one whose balances say it cannot succeed. */
function stepsOf(calldata: Calldata, context: PayContext): Step[] {
  const metadata = calldata.metadata;
  if (calldata.paymentType === 'single') {
    const { display } = context;
    const currency = display.paymentType === 'single' ? symbolOf(display.paymentCurrency) : '';
    if (metadata.hasEnoughBalance === false) {
      // A fiat link's payment may take up to maxToSpend (the rate may move): that is the need.
      const needs = metadata.maxToSpend ?? metadata.requiredAmount ?? 'more';
      throw new Problem(
        `This wallet holds ${metadata.balance ?? 'less than'} ${currency}, and the payment needs ${metadata.maxToSpend ? 'up to ' : ''}${needs} ${currency}. Add funds to it, or pay from another wallet.`,
      );
    }
  }
  // A batch or a multicall names each token it is short of.
  const short = metadata.insufficientTokens?.[0];
  if (short) {
    const symbol = short.tokenSymbol ?? '';
    throw new Problem(
      `This wallet holds ${short.available} ${symbol}, and the payments need ${short.required} ${symbol}. Add funds to it, or pay from another wallet.`,
    );
  }
  if (metadata.hasEnoughGas === false) throw gasProblem(context.network);
  if (calldata.paymentType === undefined) {
    return [
      ...calldata.ERC20ApprovalTransactions.map((call) => ({ kind: 'approve' as const, call })),
      { kind: 'pay', call: calldata.batchPaymentTransaction },
    ];
  }
  const payAt = calldata.metadata.paymentTransactionIndex ?? calldata.transactions.length - 1;
  return calldata.transactions.map((call, i) => {
    if (!isEvmCall(call)) throw new Problem('This link is not paid from an EVM wallet.');
    return { kind: i < payAt ? 'approve' : 'pay', call };
  });
}

function gasProblem(network: NetworkFacts): Problem {
  return new Problem(
    `This wallet does not hold enough ${network.native.symbol} for the network fee (gas). Add ${network.native.symbol} to it, or pay from another wallet.`,
  );
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

function actionOf(step: Step, context: PayContext, quote: Quote | null): string {
  const { display } = context;
  if (step.kind === 'approve') return 'Allow the payment contract to send your tokens';
  switch (display.paymentType) {
    case 'single':
      return quote
        ? `Send ${quote.required} ${quote.token} (${display.amount} ${quote.fiat})`
        : `Send ${display.amount} ${symbolOf(display.paymentCurrency)}`;
    case 'batch':
      return `Send the ${display.amounts.length} payments`;
    case 'multicall':
      return `Send the ${display.children.filter((child) => child.executable).length} payouts`;
  }
}

export async function payWithEvm(context: PayContext, wallet: WalletChoice): Promise<string[]> {
  context.show(connectingScreen(wallet.name));
  const chain = chainOf(context.network);
  const transport = custom(wallet.provider, { retryCount: 0 });
  // Only the actions used, not the decorated clients: a fraction of viem's weight.
  const client = createClient({ chain, transport, pollingInterval: RECEIPT_POLL_MS });
  const [account] = await requestAddresses(client);
  if (!account) throw new Problem('Your wallet shared no account. Unlock it, then try again.');
  assertPayoutWallet(context.display, account);
  const report = reporter(context, wallet.rdns, account);
  report('wallet_connected');
  await ensureChain(context, client, chain);
  return runSteps(context, wallet, account, report, async (call) => {
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
  });
}

type Read = () => Promise<{ steps: Step[]; quote: Quote | null }>;

/**
 * The payment was refused by the chain: reads fresh calldata and, when the rate moved, shows
 * the payer the old and the new quote and waits for their choice. A rate older than the
 * contracts accept, or a refusal the rate does not explain, ends the attempt in words.
 */
async function requote(
  context: PayContext,
  before: Quote,
  sent: boolean,
  read: Read,
): Promise<{ steps: Step[]; quote: Quote | null }> {
  const fresh = await read();
  const now = fresh.quote;
  if (now && isStale(now)) {
    throw new Problem(
      `The exchange rate on the network was last set ${age(now.rateTimestamp)}, longer ago than the payment contract accepts, so nothing was paid. Try again later, or contact the merchant.`,
    );
  }
  if (!now || now.required === before.required) {
    throw new Problem(
      'The network refused the transaction, so nothing was paid. Try again; if it keeps failing, contact the merchant.',
    );
  }
  const pay = await new Promise<boolean>((resolve) =>
    context.show(requoteScreen(before, now, sent, resolve)),
  );
  if (!pay) {
    throw new Problem(
      `You stopped after the exchange rate moved; nothing was paid. The payment now needs ${now.required} ${now.token}.`,
    );
  }
  return fresh;
}

interface Sent {
  readonly hash: string;
  /** Resolves once the transaction is in a block: true when it succeeded. */
  mined(): Promise<boolean>;
}

async function runSteps(
  context: PayContext,
  wallet: WalletChoice,
  account: Address,
  report: Report,
  send: (call: EvmCall) => Promise<Sent>,
): Promise<string[]> {
  const read = async () => {
    const calldata = await context.api.calldata(context.token, account);
    return { steps: stepsOf(calldata, context), quote: quoteOf(context.display, calldata) };
  };
  let { steps, quote } = await read();
  const hashes: string[] = [];
  for (let done = 0; done < MAX_STEPS; done++) {
    const step = steps[0];
    if (!step) break;
    const position = [done + 1, done + steps.length] as const;
    const action = actionOf(step, context, quote);
    context.show(payingScreen(...position, action, `Confirm in ${wallet.name}.`));
    if (step.kind === 'pay') report('payment_sent_to_wallet');
    // A fiat link's payment reverts when the rate moved past what the quote allowed: it is
    // quoted again and the payer asked to pay the new amount, rather than left at a dead end.
    const converting = step.kind === 'pay' && quote !== null;
    let sent: Sent;
    try {
      sent = await send(step.call);
    } catch (error) {
      if (!converting || !quote || !isRevert(error)) throw error;
      ({ steps, quote } = await requote(context, quote, false, read));
      continue;
    }
    if (step.kind === 'pay') {
      report('payment_approved_in_wallet', {
        payment_submission_id: sent.hash,
        payment_submission_id_type: 'transaction_hash',
      });
    }
    context.show(payingScreen(...position, action, 'Sent. Waiting for the network to include it…'));
    if (!(await sent.mined())) {
      if (!converting || !quote) {
        throw new Problem(
          'The network refused the transaction, so nothing was paid. Try again; if it keeps failing, contact the merchant.',
        );
      }
      ({ steps, quote } = await requote(context, quote, true, read));
      continue;
    }
    hashes.push(sent.hash);
    if (step.kind === 'pay') return hashes;
    ({ steps, quote } = await read());
  }
  throw new Problem('The payment could not be prepared. Reload the page and try again.');
}
