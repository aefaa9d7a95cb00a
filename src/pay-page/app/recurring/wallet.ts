import type { WalletChoice } from '../../../web/eip6963.ts';
import { ApiError } from '../answer.ts';
import { connect, failureWords, sendMined } from '../token-page/wallet.ts';
import { offerWallets } from '../wallet/offer.ts';
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

/** The domain's fields, in the order EIP-712 wallets hash them, as they want them listed. */
const EIP712_DOMAIN = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

export const SIGN_REFUSED =
  'You declined to sign in your wallet, so the schedule is not set up and nothing will be paid. You can try again.';

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
  offerWallets(
    slot,
    (name) => `Approve with ${name}`,
    (wallet) => void attempt(context, wallet),
  );
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
    context.retry(failureWords(context.network, error));
  }
}

async function setUp(context: RecurringContext, wallet: WalletChoice): Promise<void> {
  const { view } = context;
  const connected = await connect(
    context,
    wallet,
    view.payer,
    (payer, account) =>
      `Only the paying wallet can approve this schedule: ${payer}. This wallet is ${account}. Connect that wallet, then try again.`,
  );
  const { account } = connected;
  const approvals = await context.api.approvals(context.token, account);
  const steps = approvals.length + 1;
  const allow = 'Allow the payment contract to send the scheduled payments from your wallet';
  for (const [i, approval] of approvals.entries()) {
    context.show(stepScreen(i + 1, steps, allow, `Confirm in ${wallet.name}.`));
    await sendMined(
      connected,
      approval,
      () =>
        context.show(
          stepScreen(i + 1, steps, allow, 'Sent. Waiting for the network to include it…'),
        ),
      'The network refused the approval, so the schedule is not set up. Try again; if it keeps failing, contact the merchant.',
    );
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
