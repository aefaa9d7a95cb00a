import type { Display } from '../api.ts';
import { Problem } from './problems.ts';

/**
 * A payout link is paid from the wallet that created it and no other (the API refuses the
 * calldata to any other wallet). Checked as soon as the wallet names its account, before the
 * page asks it for anything else: another wallet is never asked to switch or to send.
 */
export function assertPayoutWallet(display: Display, account: string): void {
  const creator = display.payout === true ? display.creatorWalletAddress : null;
  if (!creator || creator.toLowerCase() === account.toLowerCase()) return;
  throw new Problem(
    `Only the wallet that created this payout can send it: ${creator}. This wallet is ${account}. Connect that wallet, then try again.`,
  );
}
