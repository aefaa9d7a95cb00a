import { findTronLink, requestTronAccount, type TronLink } from '../../../web/tron-link.ts';
import type { TronCall, TronParameter } from '../calldata.ts';
import type { PayContext } from '../context.ts';
import { connectingScreen, payingScreen } from '../screens.ts';
import { assertPayoutWallet } from './payout.ts';
import { codeOf, Problem } from './problems.ts';
import { reporter } from './telemetry.ts';

/**
 * Paying a Tron link with TronLink, through the `tronLink` / `tronWeb` objects it injects:
 * ask for the account, then for each step of `/pay` (approve, then pay: Tron answers carry
 * both every time, so they are read once) build the call with TronWeb, have TronLink sign it,
 * broadcast it through TronLink's node and wait until it is in a block.
 */

interface TronTransaction {
  readonly txID: string;
}

/** The part of TronWeb (the object TronLink injects) the page uses. */
interface TronWebLike {
  readonly defaultAddress: { readonly base58: string | false };
  readonly transactionBuilder: {
    triggerSmartContract(
      contractAddress: string,
      functionSelector: string,
      options: { feeLimit: number; callValue: number },
      parameters: readonly TronParameter[],
      issuerAddress: string,
    ): Promise<{ result?: { result?: boolean; message?: string }; transaction?: TronTransaction }>;
  };
  readonly trx: {
    sign(transaction: TronTransaction): Promise<TronTransaction>;
    sendRawTransaction(
      signed: TronTransaction,
    ): Promise<{ result?: boolean; txid?: string; code?: string; message?: string }>;
    getTransactionInfo(
      txid: string,
    ): Promise<{ blockNumber?: number; receipt?: { result?: string } }>;
  };
}

type TronWallet = TronLink<TronWebLike>;

const INCLUDED_POLL_MS = 1_500;

const NO_TRX =
  'This wallet does not hold enough TRX for the network fee (energy and bandwidth). Add TRX to it, then try again.';

/** Full nodes send their messages as hex-encoded text. */
function nodeText(message: string | undefined): string {
  if (!message || !/^(?:[0-9a-f]{2})+$/i.test(message)) return message ?? '';
  const bytes = new Uint8Array(
    message.match(/../g)?.map((pair) => Number.parseInt(pair, 16)) ?? [],
  );
  return new TextDecoder().decode(bytes);
}
/** About five minutes: Tron makes a block every three seconds. */
const INCLUDED_POLLS = 200;

export function findTronWallet(): TronWallet | null {
  return findTronLink<TronWebLike>();
}

async function connect(wallet: TronWallet): Promise<{ tronWeb: TronWebLike; address: string }> {
  const shared = await requestTronAccount(wallet);
  if ('address' in shared) return shared;
  if (shared.refused) throw Object.assign(new Error('User rejected'), { code: 4001 });
  throw new Problem('TronLink shared no account. Unlock it, allow this site, then try again.');
}

/** Waits for the transaction's block; answers its result (`SUCCESS`, `REVERT`, `OUT_OF_ENERGY`…). */
async function included(tronWeb: TronWebLike, txid: string): Promise<string> {
  for (let poll = 0; poll < INCLUDED_POLLS; poll++) {
    const info = await tronWeb.trx.getTransactionInfo(txid);
    if (info.blockNumber !== undefined) return info.receipt?.result ?? 'SUCCESS';
    await new Promise((resolve) => setTimeout(resolve, INCLUDED_POLL_MS));
  }
  throw new Problem(
    'The network has not included the transaction yet. Check TronLink, then reload this page.',
  );
}

export async function payWithTron(context: PayContext, wallet: TronWallet): Promise<string[]> {
  context.show(connectingScreen('TronLink'));
  const { tronWeb, address } = await connect(wallet);
  assertPayoutWallet(context.display, address);
  const report = reporter(context, 'tronlink', address);
  report('wallet_connected');
  const calldata = await context.api.calldata(context.token, address);
  if (!('transactions' in calldata)) throw new Problem('This link is not paid from a Tron wallet.');
  const calls = calldata.transactions.filter(
    (call): call is TronCall => 'type' in call && call.type === 'tron',
  );
  if (calls.length !== calldata.transactions.length || calls.length === 0) {
    throw new Problem('This link is not paid from a Tron wallet.');
  }
  const hashes: string[] = [];
  for (const [i, call] of calls.entries()) {
    const pay = i === calls.length - 1;
    const action = pay ? 'Send the payment' : 'Allow the payment contract to send your tokens';
    context.show(payingScreen(i + 1, calls.length, action, 'Confirm in TronLink.'));
    const built = await tronWeb.transactionBuilder.triggerSmartContract(
      call.contractAddress,
      call.functionSelector,
      { feeLimit: call.feeLimit, callValue: call.callValue },
      call.parameters,
      address,
    );
    if (!built.transaction || built.result?.result !== true) {
      throw new Problem('TronLink could not prepare the transaction. Try again in a moment.');
    }
    if (pay) report('payment_sent_to_wallet');
    const signed = await tronWeb.trx.sign(built.transaction).catch((error: unknown) => {
      // TronLink rejects with a bare string when the payer declines.
      if (codeOf(error) === undefined && /declined|cancel|reject/i.test(String(error)))
        throw Object.assign(new Error('User rejected'), { code: 4001 });
      throw error;
    });
    const sent = await tronWeb.trx.sendRawTransaction(signed);
    if (!sent.result || !sent.txid) {
      throw new Problem(
        /BANDWITH|BANDWIDTH|ENERGY|balance/i.test(`${sent.code} ${nodeText(sent.message)}`)
          ? NO_TRX
          : 'The Tron network refused the transaction, so nothing was paid. Try again.',
      );
    }
    if (pay) {
      report('payment_approved_in_wallet', {
        payment_submission_id: sent.txid,
        payment_submission_id_type: 'transaction_hash',
      });
    }
    context.show(
      payingScreen(i + 1, calls.length, action, 'Sent. Waiting for the network to include it…'),
    );
    const result = await included(tronWeb, sent.txid);
    if (result === 'OUT_OF_ENERGY') throw new Problem(NO_TRX);
    if (result !== 'SUCCESS') {
      throw new Problem('The network refused the transaction, so nothing was paid. Try again.');
    }
    hashes.push(sent.txid);
  }
  return hashes;
}
