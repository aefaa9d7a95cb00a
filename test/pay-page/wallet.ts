import type { BrowserContext, Page } from 'playwright-core';
import {
  type Account,
  createWalletClient,
  custom,
  defineChain,
  type Hex,
  http,
  numberToHex,
} from 'viem';
import type { Eip1193Provider, LocalChain } from '../../src/sandbox/chain.ts';
import { executeRelayed } from '../smart-account.ts';
import { typedDataOfJson } from './typed-data.ts';
import {
  type AtomicSupport,
  BATCH_METHODS,
  type CallBatch,
  handleBatchMethod,
  rpcError,
} from './wallet-calls.ts';

/**
 * A browser wallet for tests: the page sees an EIP-1193 provider announced through EIP-6963,
 * as a wallet extension would inject it; every call crosses into the test process, which
 * signs with a sandbox key and sends to the chain the wallet is on: the local chain it starts
 * with, or one the page added, through the RPC URL the page gave (as a real wallet does). A
 * test can make it decline, start on another chain, or not know the link's chain, and reads
 * back every call the page made. A wallet may offer EIP-5792 atomic batches (wallet-calls.ts).
 */

/** A chain the wallets know from the start, and how to reach it. */
export interface HomeChain {
  readonly chainId: number;
  readonly provider: Eip1193Provider;
}

export interface TestWalletSpec {
  readonly name: string;
  readonly rdns: string;
  readonly account: Account;
  /** The chain the wallet is on when the page connects; the home chain's by default. */
  readonly startChainId?: number;
  /** Chain ids the wallet can switch to without adding them first; the home chain's by default. */
  readonly knownChainIds?: readonly number[];
  /** What it answers to `wallet_getCapabilities`; without it, the EIP-5792 methods are unknown. */
  readonly atomic?: AtomicSupport;
  /**
   * A smart account `account` owns (test/smart-account.ts): the wallet shares it first and
   * `account` after, and runs `wallet_sendCalls` from it as one execution that `account`
   * signs and `relayer` sends, as a bundler would.
   */
  readonly smartAccount?: {
    readonly address: Hex;
    readonly relayer: Account;
    readonly chain: LocalChain;
  };
}

/** One call as a dapp asks a wallet to send it. */
interface Call {
  readonly to: Hex;
  readonly data?: Hex;
  readonly value?: Hex;
}

interface WalletCall {
  readonly method: string;
  readonly params: unknown;
}

export interface TestWallet {
  readonly spec: TestWalletSpec;
  readonly calls: WalletCall[];
  /** The hashes of the transactions it sent, in order. */
  readonly sent: Hex[];
  /** The batches of calls it took (`wallet_sendCalls`), in order. */
  readonly batches: CallBatch[];
  /** The signatures it made over EIP-712 typed data (`eth_signTypedData_v4`), in order. */
  readonly signed: Hex[];
  /** The signatures it made over messages (`personal_sign`: a wallet sign-in), in order. */
  readonly signedMessages: Hex[];
  chainId: number;
  /** How many of the next transaction or signature requests the payer declines (code 4001). */
  declineNext: number;
  /** While set, transaction and signature requests wait for it (the page stays on its screen). */
  hold: Promise<void> | null;
  /**
   * Runs between the wallet's estimate and its send, as the payer reads the confirmation: what
   * it changes on chain (a rate moving) is not in the estimate, so the transaction may revert.
   */
  beforeSend: ((call: { readonly to: Hex; readonly data?: Hex }) => Promise<void>) | null;
}

interface PageWindow {
  __payreqTestWallet(index: number, method: string, params: unknown): Promise<Answer>;
  dispatchEvent(event: Event): boolean;
  addEventListener(type: string, listener: () => void): void;
}

interface Answer {
  readonly ok?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

/** A square data-URI icon, as wallets announce theirs. */
function icon(color: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="6" fill="${color}"/></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

const COLORS = ['#f6851b', '#3b82f6', '#10b981', '#a855f7'];

/**
 * Installs the wallets in every page of `context` (before any of the page's scripts run).
 * Returns them for the test to steer and inspect.
 */
export async function installTestWallets(
  context: BrowserContext | Page,
  home: HomeChain | null,
  specs: readonly TestWalletSpec[],
  /** Chains the wallets also know from the start (a payer's other network). */
  others: readonly HomeChain[] = [],
): Promise<TestWallet[]> {
  const wallets = specs.map(
    (spec): TestWallet => ({
      spec,
      calls: [],
      sent: [],
      batches: [],
      signed: [],
      signedMessages: [],
      chainId: spec.startChainId ?? home?.chainId ?? 1,
      declineNext: 0,
      hold: null,
      beforeSend: null,
    }),
  );
  const homes = [...(home ? [home] : []), ...others];
  const known = wallets.map(
    (w) => new Set(w.spec.knownChainIds ?? homes.map((chain) => chain.chainId)),
  );
  /** How each chain is reached: the home chains in process, added ones over HTTP. */
  const providers = new Map<number, Eip1193Provider>(
    homes.map((chain) => [chain.chainId, chain.provider]),
  );
  const providerOf = (chainId: number): Eip1193Provider => {
    const provider = providers.get(chainId);
    if (!provider) throw rpcError(-32603, `the wallet has no RPC for chain ${chainId}`);
    return provider;
  };

  /** The payer's answer to a request: waits while the test holds it, declines when told to. */
  const confirm = async (wallet: TestWallet): Promise<void> => {
    await wallet.hold;
    if (wallet.declineNext > 0) {
      wallet.declineNext--;
      throw rpcError(4001, 'User rejected the request.');
    }
  };

  /** Signs `tx` with the wallet's account and sends it on the wallet's chain. */
  const send = async (wallet: TestWallet, tx: Call): Promise<Hex> => {
    const client = createWalletClient({
      account: wallet.spec.account,
      chain: defineChain({
        id: wallet.chainId,
        name: `chain ${wallet.chainId}`,
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [] } },
      }),
      transport: custom(providerOf(wallet.chainId), { retryCount: 0 }),
    });
    const request = {
      to: tx.to,
      ...(tx.data && { data: tx.data }),
      value: BigInt(tx.value ?? '0x0'),
    };
    const hook = wallet.beforeSend;
    if (!hook) return client.sendTransaction(request);
    // Estimated (gas, nonce, fees) before the hook, sent as estimated after it.
    const prepared = await client.prepareTransactionRequest(request);
    await hook(tx);
    return client.sendTransaction(prepared);
  };

  const handle = async (index: number, method: string, params: unknown): Promise<unknown> => {
    const wallet = wallets[index];
    const chains = known[index];
    if (!wallet || !chains) throw rpcError(4200, 'unknown wallet');
    wallet.calls.push({ method, params });
    const list = Array.isArray(params) ? params : [];
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return wallet.spec.smartAccount
          ? [wallet.spec.smartAccount.address, wallet.spec.account.address]
          : [wallet.spec.account.address];
      case 'eth_chainId':
        return numberToHex(wallet.chainId);
      case 'wallet_switchEthereumChain': {
        const id = Number((list[0] as { chainId: string }).chainId);
        if (!chains.has(id)) throw rpcError(4902, `Unrecognized chain ID ${id}`);
        wallet.chainId = id;
        return null;
      }
      case 'wallet_addEthereumChain': {
        const added = list[0] as { chainId: string; rpcUrls?: string[] };
        const id = Number(added.chainId);
        const url = added.rpcUrls?.[0];
        if (!url) throw rpcError(-32602, 'rpcUrls is required');
        const transport = http(url, { retryCount: 0 })({});
        providers.set(id, { request: transport.request } as Eip1193Provider);
        chains.add(id);
        return null;
      }
      case 'eth_sendTransaction': {
        await confirm(wallet);
        const hash = await send(wallet, list[0] as Call);
        wallet.sent.push(hash);
        return hash;
      }
      case 'eth_signTypedData_v4': {
        await confirm(wallet);
        const [address, json] = list as [string, string];
        const { account } = wallet.spec;
        if (address.toLowerCase() !== account.address.toLowerCase() || !account.signTypedData) {
          throw rpcError(4100, `the wallet holds no account ${address}`);
        }
        const signature = await account.signTypedData(typedDataOfJson(json));
        wallet.signed.push(signature);
        return signature;
      }
      case 'personal_sign': {
        await wallet.hold;
        if (wallet.declineNext > 0) {
          wallet.declineNext--;
          throw rpcError(4001, 'User rejected the request.');
        }
        const [data, address] = list as [Hex, string];
        const { account } = wallet.spec;
        if (address.toLowerCase() !== account.address.toLowerCase() || !account.signMessage) {
          throw rpcError(4100, `the wallet holds no account ${address}`);
        }
        const signature = await account.signMessage({ message: { raw: data } });
        wallet.signedMessages.push(signature);
        return signature;
      }
      default:
        if (BATCH_METHODS.has(method)) {
          const smart = wallet.spec.smartAccount;
          return handleBatchMethod(
            {
              address: wallet.spec.smartAccount?.address ?? wallet.spec.account.address,
              atomic: wallet.spec.atomic,
              chainId: wallet.chainId,
              knownChainIds: chains,
              batches: wallet.batches,
              async send(call) {
                const hash = await send(wallet, call);
                wallet.sent.push(hash);
                return hash;
              },
              provider: () => providerOf(wallet.chainId),
              confirm: () => confirm(wallet),
              ...(smart && {
                sendAll: (calls: readonly Call[]) =>
                  executeRelayed(
                    smart.chain,
                    wallet.spec.account,
                    smart.relayer,
                    smart.address,
                    calls.map((call) => ({
                      target: call.to,
                      value: BigInt(call.value ?? '0x0'),
                      data: call.data ?? '0x',
                    })),
                  ),
              }),
            },
            method,
            list,
          );
        }
        // Reads (receipts, blocks, estimates) go to the chain, as a wallet's node answers them.
        return providerOf(wallet.chainId).request({ method, params: list });
    }
  };

  await context.exposeBinding(
    '__payreqTestWallet',
    async (_source, index: number, method: string, params: unknown): Promise<Answer> => {
      try {
        return { ok: await handle(index, method, params) };
      } catch (error) {
        const { code, message } = error as { code?: unknown; message?: unknown };
        return {
          error: {
            code: typeof code === 'number' ? code : -32603,
            message: typeof message === 'string' ? message : String(error),
          },
        };
      }
    },
  );
  await context.addInitScript(
    (infos: { name: string; rdns: string; icon: string; uuid: string }[]) => {
      // The page's window (this runs in the browser; the test's types have no DOM).
      const page = globalThis as unknown as PageWindow;
      const call = page.__payreqTestWallet;
      infos.forEach((info, index) => {
        const provider = {
          async request({ method, params }: { method: string; params?: unknown }) {
            const answer = await call(index, method, params ?? []);
            if (answer.error) {
              throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
            }
            return answer.ok;
          },
          on() {},
          removeListener() {},
        };
        const detail = Object.freeze({ info: Object.freeze(info), provider });
        const announce = () =>
          page.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
        page.addEventListener('eip6963:requestProvider', announce);
        announce();
      });
    },
    specs.map((spec, i) => ({
      name: spec.name,
      rdns: spec.rdns,
      icon: icon(COLORS[i % COLORS.length] ?? '#000'),
      uuid: `00000000-0000-4000-8000-00000000000${i}`,
    })),
  );
  return wallets;
}
