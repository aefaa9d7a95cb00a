import type { Eip1193Provider } from './chain.ts';

/** JSON-RPC 2.0 over an EIP-1193 provider: what /sandbox/rpc and the loopback RPC server answer. */

interface RpcCall {
  readonly jsonrpc?: string;
  readonly id?: string | number | null;
  readonly method?: unknown;
  readonly params?: unknown;
}

/** Largest JSON-RPC batch answered. */
const MAX_RPC_BATCH = 100;

/**
 * What any web page may ask of the sandbox chain through a browser (its JSON-RPC answers every
 * origin): reads, raw transactions a wallet signed, and mining. Not the node's own unlocked
 * test accounts (`eth_sendTransaction`, `eth_sign*`, `personal_*`), nor rewriting the chain
 * (`evm_revert`, `hardhat_*`, `debug_*`), nor ours that change it (`sandbox_setRate`): a page
 * the developer happens to open must not spend the test wallets, roll the chain back or move
 * its rates. Scripts and the CLI, which send no Origin, may.
 */
const BROWSER_REFUSED =
  /^(eth_sendTransaction|eth_sign|eth_signTransaction|eth_signTypedData.*|personal_.*|hardhat_.*|debug_.*|evm_(?!mine$).*|sandbox_.*)$/;

export interface RpcOptions {
  /** The call comes from a browser page (it sent Origin). */
  readonly fromBrowser?: boolean;
}

async function answerOne(provider: Eip1193Provider, call: RpcCall, options: RpcOptions) {
  const id = call?.id ?? null;
  if (typeof call?.method !== 'string') {
    return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
  }
  if (options.fromBrowser && BROWSER_REFUSED.test(call.method)) {
    return {
      jsonrpc: '2.0',
      id,
      error: {
        code: -32601,
        message: call.method.startsWith('sandbox_')
          ? `${call.method} is not available to browser pages: call it from a script, such as curl`
          : `${call.method} is not available to browser pages: sign in the wallet and send eth_sendRawTransaction`,
      },
    };
  }
  try {
    const result = await provider.request({ method: call.method, params: call.params });
    return { jsonrpc: '2.0', id, result };
  } catch (error) {
    const { code, message, data } = error as { code?: number; message?: string; data?: unknown };
    return {
      jsonrpc: '2.0',
      id,
      error: {
        code: typeof code === 'number' ? code : -32603,
        message: message ?? 'Internal error',
        ...(data !== undefined && { data }),
      },
    };
  }
}

export async function answerJsonRpc(
  provider: Eip1193Provider,
  body: unknown,
  options: RpcOptions = {},
): Promise<unknown> {
  if (!Array.isArray(body)) return answerOne(provider, (body ?? {}) as RpcCall, options);
  if (body.length > MAX_RPC_BATCH) {
    return {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `At most ${MAX_RPC_BATCH} calls per batch` },
    };
  }
  return Promise.all(body.map((call) => answerOne(provider, call as RpcCall, options)));
}
