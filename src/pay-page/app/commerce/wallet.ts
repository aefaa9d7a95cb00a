import type { WalletChoice } from '../../../web/eip6963.ts';
import { ApiError } from '../answer.ts';
import type { WalletCall } from '../token-page/api.ts';
import { type Connected, connect, failureWords, sendMined } from '../token-page/wallet.ts';
import { batchOutcome, cannotBatch, offersAtomic, sendAtomic } from '../wallet/atomic.ts';
import { offerWallets } from '../wallet/offer.ts';
import { Problem } from '../wallet/problems.ts';
import type { CommerceContext } from './context.ts';
import { stepScreen } from './screens.ts';

/**
 * The buyer's wallet on a commerce payment's page: connect, check that it is the buyer the
 * payment names (before asking it for anything else), get onto the chain, then either
 * authorize (the approval of the wrapper when the allowance is short, then `authorizePayment`:
 * in one atomic `wallet_sendCalls` when the wallet runs batches atomically, EIP-5792, else each
 * waited for on chain in turn) and tell the service, which checks the receipt; or, once the
 * hold has expired, send `reclaimPayment`, after which the page follows the payment until
 * detection reads it reclaimed.
 */

const REFUSED_AUTHORIZE =
  'The network refused the transaction, so nothing is held. Try again; if it keeps failing, contact the merchant.';
const REFUSED_RECLAIM =
  'The network refused the reclaim, so the funds are still in the escrow. Try again; if it keeps failing, contact the merchant.';

export function mountCommerceWallets(context: CommerceContext, slot: HTMLElement): void {
  const verb = context.action === 'authorize' ? 'Authorize' : 'Reclaim';
  offerWallets(
    slot,
    (name) => `${verb} with ${name}`,
    (wallet) => void attempt(context, wallet),
  );
}

async function attempt(context: CommerceContext, wallet: WalletChoice): Promise<void> {
  try {
    await (context.action === 'authorize' ? authorize : reclaim)(context, wallet);
    context.follow();
  } catch (error) {
    // The payment changed under the buyer (authorized elsewhere, expired, reclaimed): show it.
    if (error instanceof ApiError && (error.status === 404 || error.status === 409)) {
      context.reload();
      return;
    }
    context.retry(failureWords(context.network, error));
  }
}

function connectBuyer(context: CommerceContext, wallet: WalletChoice): Promise<Connected> {
  const verb = context.action === 'authorize' ? 'authorize' : 'reclaim';
  return connect(
    context,
    wallet,
    context.view.buyer,
    (buyer, account) =>
      `Only the buyer’s wallet can ${verb} this payment: ${buyer}. This wallet is ${account}. Connect that wallet, then try again.`,
  );
}

async function authorize(context: CommerceContext, wallet: WalletChoice): Promise<void> {
  const connected = await connectBuyer(context, wallet);
  const calls = await context.api.transactions(context.token, connected.account);
  const last =
    (calls.length > 1 ? await authorizeAtOnce(context, wallet, connected, calls) : null) ??
    (await inTurn(context, wallet, connected, calls));
  await context.api.authorized(context.token, last);
}

/**
 * The approval and `authorizePayment` in one atomic batch, when the wallet says it runs them
 * so on the chain: the hash of the transaction that authorized, or null when the wallet will
 * not batch after all (they are then sent in turn).
 */
async function authorizeAtOnce(
  context: CommerceContext,
  wallet: WalletChoice,
  connected: Connected,
  calls: readonly WalletCall[],
): Promise<`0x${string}` | null> {
  const { client, chain, account } = connected;
  if (!(await offersAtomic(client, account, chain.id))) return null;
  const action = 'Allow the escrow to take the amount, and authorize the payment';
  context.show(
    stepScreen(1, 1, action, `Confirm in ${wallet.name}: one confirmation covers both steps.`),
  );
  let id: string;
  try {
    id = await sendAtomic(
      client,
      account,
      chain.id,
      calls.map((call) => ({ ...call, value: call.value.hex, chainId: chain.id })),
    );
  } catch (error) {
    if (cannotBatch(error)) return null;
    throw error;
  }
  context.show(stepScreen(1, 1, action, 'Sent. Waiting for the network to include it…'));
  const outcome = await batchOutcome(client, id);
  // The authorization is the batch's last call: its transaction is the last one included.
  const hash = outcome.hashes.at(-1);
  if (!outcome.ok || hash === undefined) throw new Problem(REFUSED_AUTHORIZE);
  return hash as `0x${string}`;
}

/** Each call in turn, waited for on chain: the hash of the last. */
async function inTurn(
  context: CommerceContext,
  wallet: WalletChoice,
  connected: Connected,
  calls: readonly WalletCall[],
): Promise<`0x${string}`> {
  const steps = calls.length;
  let last: `0x${string}` | null = null;
  for (const [i, call] of calls.entries()) {
    const action =
      context.action === 'reclaim'
        ? 'Reclaim the payment: the amount held comes back to your wallet'
        : i < steps - 1
          ? 'Allow the escrow to take the amount from your wallet'
          : 'Authorize the payment: the amount moves into the escrow';
    context.show(stepScreen(i + 1, steps, action, `Confirm in ${wallet.name}.`));
    last = await sendMined(
      connected,
      call,
      () =>
        context.show(
          stepScreen(i + 1, steps, action, 'Sent. Waiting for the network to include it…'),
        ),
      context.action === 'reclaim' ? REFUSED_RECLAIM : REFUSED_AUTHORIZE,
    );
  }
  if (last === null) throw new Problem('The service offered nothing to send. Try again.');
  return last;
}

/** `reclaimPayment` from the payer's wallet; detection then reads the payment reclaimed. */
async function reclaim(context: CommerceContext, wallet: WalletChoice): Promise<void> {
  const connected = await connectBuyer(context, wallet);
  const calls = await context.api.reclaim(context.token, connected.account);
  await inTurn(context, wallet, connected, calls);
}
