import { createClient, custom } from 'viem';
import { requestAddresses, sendTransaction, waitForTransactionReceipt } from 'viem/actions';
import { ApiError } from '../answer.ts';
import { h } from '../dom.ts';
import { connectingScreen } from '../screens.ts';
import { discoverWallets, type WalletChoice } from '../wallet/eip6963.ts';
import { chainOf, ensureChain } from '../wallet/evm.ts';
import { explain, Problem, REJECTED } from '../wallet/problems.ts';
import type { Permit } from './api.ts';
import type { RecurringContext } from './context.ts';
import { stepScreen } from './screens.ts';

/**
 * Setting a recurring payout up from the payer's EVM wallet: connect, check that it is the
 * schedule's payer (before asking it for anything else), get onto the chain, send the
 * approval of the recurring proxy when the allowance is short (each waited for on chain),
 * then have the wallet sign the permit with `eth_signTypedData_v4` and post the signature.
 */

const RECEIPT_POLL_MS = 1_000;

/** The domain's fields, in the order EIP-712 wallets hash them, as they want them listed. */
const EIP712_DOMAIN = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

export const SIGN_REFUSED =
  'You declined to sign in your wallet, so the schedule is not set up and nothing will be paid. You can try again.';

const NO_WALLET =
  'No wallet found in this browser. Install a wallet extension, or open this page in your wallet app’s browser.';

/** The typed data exactly as the API gave it, with the domain's type wallets ask for. */
export function typedDataOf(permit: Permit) {
  return {
    types: { EIP712Domain: EIP712_DOMAIN, ...permit.types },
    domain: permit.domain,
    primaryType: 'SchedulePermit',
    message: permit.values,
  };
}

export function mountRecurringWallets(context: RecurringContext, slot: HTMLElement): void {
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
              `Approve with ${wallet.name}`,
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

async function attempt(context: RecurringContext, wallet: WalletChoice): Promise<void> {
  try {
    await setUp(context, wallet);
    context.reload();
  } catch (error) {
    // The schedule changed under the payer (signed elsewhere, cancelled): show where it stands.
    if (
      error instanceof ApiError &&
      (error.status === 404 || (error.status === 400 && error.code !== 'invalid_signature'))
    ) {
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

async function setUp(context: RecurringContext, wallet: WalletChoice): Promise<void> {
  const { view } = context;
  context.show(connectingScreen(wallet.name));
  const chain = chainOf(context.network);
  const transport = custom(wallet.provider, { retryCount: 0 });
  const client = createClient({ chain, transport, pollingInterval: RECEIPT_POLL_MS });
  const [account] = await requestAddresses(client);
  if (!account) throw new Problem('Your wallet shared no account. Unlock it, then try again.');
  if (account.toLowerCase() !== view.payer.toLowerCase()) {
    throw new Problem(
      `Only the paying wallet can approve this schedule: ${view.payer}. This wallet is ${account}. Connect that wallet, then try again.`,
    );
  }
  await ensureChain(context, client, chain);
  const approvals = await context.api.approvals(context.token, account);
  const steps = approvals.length + 1;
  const allow = 'Allow the payment contract to send the scheduled payments from your wallet';
  for (const [i, approval] of approvals.entries()) {
    context.show(stepScreen(i + 1, steps, allow, `Confirm in ${wallet.name}.`));
    const hash = await sendTransaction(client, {
      account,
      chain,
      to: approval.to,
      data: approval.data,
      value: BigInt(approval.value.hex),
    });
    context.show(stepScreen(i + 1, steps, allow, 'Sent. Waiting for the network to include it…'));
    if ((await waitForTransactionReceipt(client, { hash })).status !== 'success') {
      throw new Problem(
        'The network refused the approval, so the schedule is not set up. Try again; if it keeps failing, contact the merchant.',
      );
    }
  }
  const sign = 'Sign the payment schedule';
  context.show(
    stepScreen(
      steps,
      steps,
      sign,
      `Confirm in ${wallet.name}. Signing sends nothing and costs no network fee.`,
    ),
  );
  let signature: unknown;
  try {
    signature = await wallet.provider.request({
      method: 'eth_signTypedData_v4',
      params: [account, JSON.stringify(typedDataOf(view.recurringPaymentPermit))],
    });
  } catch (error) {
    // Declined (4001, or a wallet's own words for it): said for what it is, a signature.
    const words = { network: context.network.name, native: context.network.native.symbol };
    if (explain(error, words) === REJECTED) throw new Problem(SIGN_REFUSED);
    throw error;
  }
  if (typeof signature !== 'string') throw new Problem('Your wallet gave no signature. Try again.');
  context.show(stepScreen(steps, steps, sign, 'Signed. Starting the schedule…'));
  await context.api.activate(context.token, signature);
}
