import type { WalletChoice } from '../../web/eip6963.ts';
import type { Network } from './config.ts';
import { accountsOf, onChain, said, walletProblem } from './wallet-chain.ts';

/**
 * Sending what a payout answered (approvals, then the payment) from the merchant's browser
 * wallet, one at a time: each is mined before the next is sent, since a payment's gas is
 * estimated against the allowance its approval sets.
 */

/** A call as payouts answer it: `value` a hex string, a number or ethers' BigNumber JSON. */
export interface Call {
  readonly to: string;
  readonly data: string;
  readonly value?: unknown;
}

const RECEIPT_POLL_MS = 1_000;
const RECEIPT_WAIT_MS = 180_000;

/** The call's value as EIP-1193 takes it: a hex quantity. */
function hexValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return `0x${value.toString(16)}`;
  if (typeof value === 'string')
    return value.startsWith('0x') ? value : `0x${BigInt(value).toString(16)}`;
  const hex = (value as { hex?: unknown } | null)?.hex;
  return typeof hex === 'string' ? hex : '0x0';
}

async function mined(wallet: WalletChoice, hash: string): Promise<void> {
  const deadline = Date.now() + RECEIPT_WAIT_MS;
  for (;;) {
    const receipt = (await wallet.provider.request({
      method: 'eth_getTransactionReceipt',
      params: [hash],
    })) as { status?: string } | null;
    if (receipt) {
      if (receipt.status === '0x0') throw said(`Transaction ${hash} failed on chain.`);
      return;
    }
    if (Date.now() > deadline)
      throw said(`Transaction ${hash} is not mined yet: check your wallet.`);
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
  }
}

/** Sends `calls` in order from the wallet's account on `network`; `onSent` hears each hash. */
export async function sendFromWallet(
  wallet: WalletChoice,
  network: Network,
  calls: readonly Call[],
  onSent: (hash: string) => void,
): Promise<void> {
  try {
    const [from] = await accountsOf(wallet);
    await onChain(wallet, network);
    for (const call of calls) {
      const hash = await wallet.provider.request({
        method: 'eth_sendTransaction',
        params: [{ from, to: call.to, data: call.data, value: hexValue(call.value) }],
      });
      if (typeof hash !== 'string') throw said(`${wallet.name} sent nothing.`);
      onSent(hash);
      await mined(wallet, hash);
    }
  } catch (error) {
    throw walletProblem(error, wallet, 'send');
  }
}
