import type { BrowserContext } from 'playwright-core';
import { concat, encodeAbiParameters, keccak256, type LocalAccount, stringToBytes } from 'viem';
import { evmToTron, tronToEvm } from '../../src/chains/tron-address.ts';
import { tronArguments } from '../../src/payments/calldata/tron.ts';
import type { TronParameter } from '../../src/payments/transactions.ts';

/**
 * TronLink for tests: the page sees `window.tronLink` and `window.tronWeb` as the extension
 * injects them; every call crosses into the test process, which builds the transaction on the
 * Tron node (as TronWeb does: ABI-encoded parameters, `41…` hex addresses), signs its id with
 * the payer's key (the key never reaches the page) and broadcasts it. A test can make the
 * payer decline or keep TronLink locked, and reads back what the page asked.
 */

export interface TestTronLink {
  readonly address: string;
  /** The methods the page called, in order. */
  readonly calls: string[];
  /** The ids of the transactions it broadcast and the node took. */
  readonly sent: string[];
  /** The messages it signed (`signMessageV2`: a wallet sign-in), in order. */
  readonly signedMessages: string[];
  /** How many of the next signatures the payer declines. */
  declineNext: number;
  /** While locked, TronLink shares no account. */
  locked: boolean;
}

interface PageWindow {
  __payreqTestTronLink(method: string, args: unknown[]): Promise<Answer>;
  tronLink?: unknown;
  tronWeb?: unknown;
}

interface Answer {
  readonly ok?: unknown;
  /** TronLink rejects with bare strings. */
  readonly error?: string;
}

/** What TronLink rejects a declined signature with. */
const DECLINED = 'Confirmation declined by user';

export async function installTestTronLink(
  context: BrowserContext,
  /** `nodeUrl`: the Tron node it builds and sends transactions on (none: it only signs in). */
  options: { account: LocalAccount; nodeUrl?: string },
): Promise<TestTronLink> {
  const { account, nodeUrl } = options;
  const wallet: TestTronLink = {
    address: evmToTron(account.address),
    calls: [],
    sent: [],
    signedMessages: [],
    declineNext: 0,
    locked: false,
  };

  async function node(path: string, body: unknown): Promise<Record<string, unknown>> {
    if (nodeUrl === undefined) throw 'this TronLink knows no node';
    const res = await fetch(`${nodeUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw `node answered ${res.status}`;
    return (await res.json()) as Record<string, unknown>;
  }

  const handlers: Record<string, (args: unknown[]) => Promise<unknown>> = {
    async request([method]) {
      if (method !== 'tron_requestAccounts') throw `unsupported method ${String(method)}`;
      // Locked, TronLink answers nothing at all.
      return wallet.locked ? '' : { code: 200, message: 'The site is already in the whitelist' };
    },
    async triggerSmartContract([contract, selector, options, parameters, issuer]) {
      const { feeLimit, callValue } = options as { feeLimit: number; callValue: number };
      const params = parameters as TronParameter[];
      return node('/wallet/triggersmartcontract', {
        owner_address: hex41(String(issuer)),
        contract_address: hex41(String(contract)),
        function_selector: selector,
        parameter: encodeAbiParameters(
          params.map((p) => ({ type: p.type })),
          tronArguments(params),
        ).slice(2),
        fee_limit: feeLimit,
        call_value: callValue,
        visible: false,
      });
    },
    async sign([transaction]) {
      if (wallet.declineNext > 0) {
        wallet.declineNext--;
        throw DECLINED;
      }
      const tx = transaction as { txID: string; signature?: string[] };
      const signature = await account.sign?.({ hash: `0x${tx.txID}` });
      if (!signature) throw 'this account cannot sign';
      return { ...tx, signature: [...(tx.signature ?? []), signature.slice(2)] };
    },
    async signMessageV2([message]) {
      if (wallet.declineNext > 0) {
        wallet.declineNext--;
        throw DECLINED;
      }
      // TronWeb's message signing v2: keccak256 of the prefix, the length and the UTF-8 bytes.
      const bytes = stringToBytes(String(message));
      const hash = keccak256(
        concat([stringToBytes(`\x19TRON Signed Message:\n${bytes.length}`), bytes]),
      );
      const signature = await account.sign?.({ hash });
      if (!signature) throw 'this account cannot sign';
      wallet.signedMessages.push(String(message));
      return signature;
    },
    async sendRawTransaction([signed]) {
      const answer = await node('/wallet/broadcasttransaction', signed);
      if (answer.result === true && typeof answer.txid === 'string') wallet.sent.push(answer.txid);
      return answer;
    },
    async getTransactionInfo([txid]) {
      return node('/wallet/gettransactioninfobyid', { value: txid });
    },
  };

  await context.exposeBinding(
    '__payreqTestTronLink',
    async (_source, method: string, args: unknown[]): Promise<Answer> => {
      wallet.calls.push(method);
      const handler = handlers[method];
      if (!handler) return { error: `unsupported method ${method}` };
      try {
        return { ok: await handler(args) };
      } catch (error) {
        return { error: typeof error === 'string' ? error : String(error) };
      }
    },
  );
  await context.addInitScript(
    ({ base58, hex }: { base58: string; hex: string }) => {
      // The page's window (this runs in the browser; the test's types have no DOM).
      const page = globalThis as unknown as PageWindow;
      const call = async (method: string, ...args: unknown[]) => {
        const answer = await page.__payreqTestTronLink(method, args);
        if (answer.error !== undefined) throw answer.error;
        return answer.ok;
      };
      let shared = false;
      const tronWeb = {
        get defaultAddress() {
          return shared ? { base58, hex } : { base58: false, hex: false };
        },
        transactionBuilder: {
          triggerSmartContract: (...args: unknown[]) => call('triggerSmartContract', ...args),
        },
        trx: {
          sign: (tx: unknown) => call('sign', tx),
          signMessageV2: (message: unknown) => call('signMessageV2', message),
          sendRawTransaction: (tx: unknown) => call('sendRawTransaction', tx),
          getTransactionInfo: (id: unknown) => call('getTransactionInfo', id),
        },
      };
      page.tronLink = {
        ready: true,
        tronWeb,
        async request({ method }: { method: string }) {
          const answer = (await call('request', method)) as { code?: number } | '';
          if (answer && answer.code === 200) shared = true;
          return answer;
        },
      };
      page.tronWeb = tronWeb;
    },
    { base58: wallet.address, hex: hex41(wallet.address) },
  );
  return wallet;
}

/** A base58 Tron address as TronWeb sends it to the node: `41` and the 20 bytes. */
function hex41(base58: string): string {
  return `41${tronToEvm(base58).slice(2).toLowerCase()}`;
}
