import { createClient, custom } from 'viem';
import { requestAddresses, sendTransaction, waitForTransactionReceipt } from 'viem/actions';
import { ApiError } from '../answer.ts';
import { h } from '../dom.ts';
import { connectingScreen } from '../screens.ts';
import { discoverWallets, type WalletChoice } from '../wallet/eip6963.ts';
import { chainOf, ensureChain } from '../wallet/evm.ts';
import { explain, Problem } from '../wallet/problems.ts';
import type { CommerceContext } from './context.ts';
import { stepScreen } from './screens.ts';

/**
 * Authorizing a commerce payment from the buyer's EVM wallet: connect, check that it is the
 * buyer the payment names (before asking it for anything else), get onto the chain, send the
 * approval of the wrapper when the allowance is short, then `authorizePayment` (each waited
 * for on chain), and tell the service, which checks the receipt.
 */

const RECEIPT_POLL_MS = 1_000;

const NO_WALLET =
  'No wallet found in this browser. Install a wallet extension, or open this page in your wallet app’s browser.';

export function mountCommerceWallets(context: CommerceContext, slot: HTMLElement): void {
  let stop = () => {};
  stop = discoverWallets((wallets: readonly WalletChoice[]) => {
    if (!slot.isConnected) return stop();
    slot.replaceChildren(
      ...(wallets.length > 0
        ? wallets.map((wallet) => {
            const button = h(
              'button',
              { class: 'button wallet', type: 'button', 'data-wallet': wallet.rdns },
              wallet.icon
                ? h('img', { src: wallet.icon, alt: '', width: '24', height: '24' })
                : null,
              `Authorize with ${wallet.name}`,
            );
            button.addEventListener(
              'click',
              () => {
                stop();
                void attempt(context, wallet);
              },
              { once: true },
            );
            return button;
          })
        : [h('p', { class: 'muted' }, NO_WALLET)]),
    );
  });
}

async function attempt(context: CommerceContext, wallet: WalletChoice): Promise<void> {
  try {
    await authorize(context, wallet);
    context.follow();
  } catch (error) {
    // The payment changed under the buyer (authorized elsewhere, expired): show where it stands.
    if (error instanceof ApiError && (error.status === 404 || error.status === 409)) {
      context.reload();
      return;
    }
    const words = { network: context.network.name, native: context.network.native.symbol };
    context.retry(
      error instanceof ApiError
        ? `The payment service answered: ${error.message}`
        : explain(error, words),
    );
  }
}

async function authorize(context: CommerceContext, wallet: WalletChoice): Promise<void> {
  const { view } = context;
  context.show(connectingScreen(wallet.name));
  const chain = chainOf(context.network);
  const transport = custom(wallet.provider, { retryCount: 0 });
  const client = createClient({ chain, transport, pollingInterval: RECEIPT_POLL_MS });
  const [account] = await requestAddresses(client);
  if (!account) throw new Problem('Your wallet shared no account. Unlock it, then try again.');
  if (view.buyer !== null && account.toLowerCase() !== view.buyer.toLowerCase()) {
    throw new Problem(
      `Only the buyer’s wallet can authorize this payment: ${view.buyer}. This wallet is ${account}. Connect that wallet, then try again.`,
    );
  }
  await ensureChain(context, client, chain);
  const calls = await context.api.transactions(context.token, account);
  const steps = calls.length;
  let last: `0x${string}` | null = null;
  for (const [i, call] of calls.entries()) {
    const action =
      i < steps - 1
        ? 'Allow the escrow to take the amount from your wallet'
        : 'Authorize the payment: the amount moves into the escrow';
    context.show(stepScreen(i + 1, steps, action, `Confirm in ${wallet.name}.`));
    const hash = await sendTransaction(client, {
      account,
      chain,
      to: call.to,
      data: call.data,
      value: BigInt(call.value.hex),
    });
    context.show(stepScreen(i + 1, steps, action, 'Sent. Waiting for the network to include it…'));
    if ((await waitForTransactionReceipt(client, { hash })).status !== 'success') {
      throw new Problem(
        'The network refused the transaction, so nothing is held. Try again; if it keeps failing, contact the merchant.',
      );
    }
    last = hash;
  }
  if (last === null) throw new Problem('The service offered nothing to send. Try again.');
  await context.api.authorized(context.token, last);
}
