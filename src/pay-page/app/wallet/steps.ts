import type { WalletChoice } from '../../../web/eip6963.ts';
import type { Calldata, EvmCall } from '../calldata.ts';
import type { NetworkFacts } from '../config.ts';
import type { PayContext } from '../context.ts';
import { isStale, type Quote, quoteOf, requoteScreen } from '../conversion.ts';
import { age, symbolOf } from '../format.ts';
import { payingScreen } from '../screens.ts';
import { forgetSent, rememberSent } from '../sent.ts';
import type { BatchOutcome } from './atomic.ts';
import { cannotBatch } from './atomic.ts';
import { isRevert, Problem } from './problems.ts';
import type { Report } from './telemetry.ts';

/**
 * The steps `/pay` returns for a wallet (approvals first, the payment, the fee legs after it),
 * sent in one of two ways. A wallet that runs batches atomically (EIP-5792) gets them all in one
 * request: one confirmation, and nothing happens unless everything does. Any other wallet gets
 * them one at a time, each waited for on chain, the calldata read again after each approval
 * (what is left depends on what the chain now says). Returns the transactions sent; the page
 * then follows the link until detection completes it.
 */

/** Approvals plus the payment; more than this means the answers are not converging. */
const MAX_STEPS = 8;

const REFUSED =
  'The network refused the transaction, so nothing was paid. Try again; if it keeps failing, contact the merchant.';

interface Step {
  /** Approvals before the payment; the fee legs `/pay` appends after it. */
  readonly kind: 'approve' | 'pay' | 'fee';
  readonly call: EvmCall;
}

interface Sent {
  readonly hash: string;
  /** Resolves once the transaction is in a block: true when it succeeded. */
  mined(): Promise<boolean>;
}

/** How the wallet is asked: one call at a time, or all of them at once. */
export interface Sender {
  one(call: EvmCall): Promise<Sent>;
  /** Whether the wallet runs a batch atomically on the link's chain; asked when first needed. */
  atomic(): Promise<boolean>;
  /** Every call in one atomic batch: the wallet's id of it, and how it ended once it has. */
  all(calls: readonly EvmCall[]): Promise<{ id: string; outcome(): Promise<BatchOutcome> }>;
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
    return { kind: i < payAt ? 'approve' : i === payAt ? 'pay' : 'fee', call };
  });
}

function gasProblem(network: NetworkFacts): Problem {
  return new Problem(
    `This wallet does not hold enough ${network.native.symbol} for the network fee (gas). Add ${network.native.symbol} to it, or pay from another wallet.`,
  );
}

function actionOf(step: Step, context: PayContext, quote: Quote | null): string {
  const { display } = context;
  if (step.kind === 'approve') return 'Allow the payment contract to send your tokens';
  if (step.kind === 'fee') return 'Pay the fee';
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
  if (!now || now.required === before.required) throw new Problem(REFUSED);
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

type Batched =
  | { readonly kind: 'paid'; readonly hashes: readonly string[] }
  /** The wallet would not take the batch after all: the steps go one at a time. */
  | { readonly kind: 'unbatched' }
  | { readonly kind: 'again'; readonly fresh: { steps: Step[]; quote: Quote | null } };

/** Every step in one atomic request, then waits until the wallet says how it ended. */
async function sendBatch(
  context: PayContext,
  wallet: WalletChoice,
  report: Report,
  sender: Sender,
  steps: readonly Step[],
  quote: Quote | null,
  read: Read,
): Promise<Batched> {
  const pay = steps.find((step) => step.kind === 'pay') ?? steps[steps.length - 1];
  const action = pay ? actionOf(pay, context, quote) : '';
  context.show(
    payingScreen(
      1,
      1,
      action,
      `Confirm in ${wallet.name}: one confirmation covers all ${steps.length} steps.`,
    ),
  );
  report('payment_sent_to_wallet');
  let batch: Awaited<ReturnType<Sender['all']>>;
  try {
    batch = await sender.all(steps.map((step) => step.call));
  } catch (error) {
    if (cannotBatch(error)) return { kind: 'unbatched' };
    // A fiat payment the wallet's simulation refuses: the rate moved since the quote.
    if (!quote || !isRevert(error)) throw error;
    return { kind: 'again', fresh: await requote(context, quote, false, read) };
  }
  report('payment_approved_in_wallet', {
    payment_submission_id: batch.id,
    payment_submission_id_type: 'eip5792_calls_id',
  });
  // Nothing hashed yet, but on its way: a reload follows the link rather than offer to pay.
  rememberSent(context.token, []);
  context.show(payingScreen(1, 1, action, 'Sent. Waiting for the network to include it…'));
  const outcome = await batch.outcome();
  if (outcome.ok) return { kind: 'paid', hashes: outcome.hashes };
  forgetSent(context.token);
  // Atomic: nothing of it happened, so a new quote is paid with its approvals again.
  if (!quote) throw new Problem(REFUSED);
  return { kind: 'again', fresh: await requote(context, quote, true, read) };
}

/**
 * The fee legs after a payment that is made, one at a time, from the same answer. A leg the
 * wallet declines or the chain refuses stays outstanding on the link, which shows it; the page
 * follows the link either way, and never offers to pay the payment again.
 */
async function sendFees(
  context: PayContext,
  wallet: WalletChoice,
  sender: Sender,
  fees: readonly Step[],
  before: number,
): Promise<string[]> {
  const hashes: string[] = [];
  for (const [i, fee] of fees.entries()) {
    const position = [before + i + 1, before + fees.length] as const;
    const action = actionOf(fee, context, null);
    context.show(payingScreen(...position, action, `Confirm in ${wallet.name}.`));
    try {
      const sent = await sender.one(fee.call);
      context.show(
        payingScreen(...position, action, 'Sent. Waiting for the network to include it…'),
      );
      if (!(await sent.mined())) break;
      hashes.push(sent.hash);
    } catch {
      break;
    }
  }
  return hashes;
}

export async function runSteps(
  context: PayContext,
  wallet: WalletChoice,
  account: string,
  report: Report,
  sender: Sender,
): Promise<string[]> {
  const read = async () => {
    const calldata = await context.api.calldata(context.token, account);
    return { steps: stepsOf(calldata, context), quote: quoteOf(context.display, calldata) };
  };
  let { steps, quote } = await read();
  const hashes: string[] = [];
  let atomic: boolean | null = null;
  for (let round = 0; round < MAX_STEPS; round++) {
    const step = steps[0];
    if (!step) break;
    // Several calls: asked once whether the wallet would take them all at once.
    if (steps.length > 1 && atomic === null) atomic = await sender.atomic();
    if (steps.length > 1 && atomic) {
      const batched = await sendBatch(context, wallet, report, sender, steps, quote, read);
      if (batched.kind === 'paid') return [...hashes, ...batched.hashes];
      if (batched.kind === 'unbatched') atomic = false;
      else ({ steps, quote } = batched.fresh);
      continue;
    }
    const position = [hashes.length + 1, hashes.length + steps.length] as const;
    const action = actionOf(step, context, quote);
    context.show(payingScreen(...position, action, `Confirm in ${wallet.name}.`));
    if (step.kind === 'pay') report('payment_sent_to_wallet');
    // A fiat link's payment reverts when the rate moved past what the quote allowed: it is
    // quoted again and the payer asked to pay the new amount, rather than left at a dead end.
    const converting = step.kind === 'pay' && quote !== null;
    let sent: Sent;
    try {
      sent = await sender.one(step.call);
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
      // On its way: a reload follows the link rather than offer to pay it again.
      rememberSent(context.token, [...hashes, sent.hash]);
    }
    context.show(payingScreen(...position, action, 'Sent. Waiting for the network to include it…'));
    if (!(await sent.mined())) {
      if (step.kind === 'pay') forgetSent(context.token);
      if (!converting || !quote) throw new Problem(REFUSED);
      ({ steps, quote } = await requote(context, quote, true, read));
      continue;
    }
    hashes.push(sent.hash);
    if (step.kind !== 'approve') {
      return [
        ...hashes,
        ...(await sendFees(context, wallet, sender, steps.slice(1), hashes.length)),
      ];
    }
    // After an approval, what is left depends on the chain: read again.
    ({ steps, quote } = await read());
  }
  throw new Problem('The payment could not be prepared. Reload the page and try again.');
}
