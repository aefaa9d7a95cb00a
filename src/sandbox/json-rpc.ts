import type { Eip1193Provider } from './chain.ts';

/** JSON-RPC 2.0 over an EIP-1193 provider: what /sandbox/rpc and the loopback RPC server answer. */

export interface RpcCall {
  readonly jsonrpc?: string;
  readonly id?: string | number | null;
  readonly method?: unknown;
  readonly params?: unknown;
}

/** Largest JSON-RPC batch answered. */
export const MAX_RPC_BATCH = 100;

async function answerOne(provider: Eip1193Provider, call: RpcCall) {
  const id = call?.id ?? null;
  if (typeof call?.method !== 'string') {
    return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
  }
  try {
    const result = await provider.request({ method: call.method, params: call.params } as never);
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

export async function answerJsonRpc(provider: Eip1193Provider, body: unknown): Promise<unknown> {
  if (!Array.isArray(body)) return answerOne(provider, (body ?? {}) as RpcCall);
  if (body.length > MAX_RPC_BATCH) {
    return {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `At most ${MAX_RPC_BATCH} calls per batch` },
    };
  }
  return Promise.all(body.map((call) => answerOne(provider, call as RpcCall)));
}
