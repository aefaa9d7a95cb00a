import type { EIP1193RequestFn } from 'viem';
import type { Eip1193Provider } from './chain.ts';

/** How long one call to the chain's owner may take. */
const RPC_TIMEOUT_MS = 10_000;

/**
 * A JSON-RPC error, passed on as the chain answered it (so /sandbox/rpc on any process answers
 * what the chain itself would), or -32603 when the chain could not be reached.
 */
class SandboxRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'SandboxRpcError';
    this.code = code;
    this.data = data;
  }
}

const SANDBOX_UNREACHABLE =
  'The sandbox chain did not answer: the process that runs it may be stopping or another taking over; try again shortly';

/**
 * The sandbox chain run by another process, as an EIP-1193 provider over its JSON-RPC. Where
 * that is comes from `locate` (the `sandbox_chains` row): a call that cannot reach the last
 * known address looks again, since a new owner writes a new one, and goes there once.
 */
export function createRemoteProvider(deps: {
  /** The owner's JSON-RPC URL; `fresh` skips any cached answer. Null: nobody runs the chain. */
  locate(fresh: boolean): Promise<string | null>;
  /** Told when a recorded address did not answer (to log it: callers see no addresses). */
  onUnreachable(url: string, error: unknown): void;
}): Eip1193Provider {
  let nextId = 0;

  const call = async (url: string, method: string, params: unknown): Promise<unknown> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params }),
      signal: AbortSignal.timeout(RPC_TIMEOUT_MS),
    });
    const body = (await response.json()) as {
      result?: unknown;
      error?: { code?: unknown; message?: unknown; data?: unknown };
    };
    if (body.error) {
      const { code, message, data } = body.error;
      throw new SandboxRpcError(
        typeof code === 'number' ? code : -32603,
        typeof message === 'string' ? message : 'Internal error',
        data,
      );
    }
    return body.result ?? null;
  };

  const request = async ({ method, params }: { method: string; params?: unknown }) => {
    let url = await deps.locate(false);
    for (let attempt = 0; url !== null; attempt++) {
      try {
        return await call(url, method, params);
      } catch (error) {
        if (error instanceof SandboxRpcError) throw error;
        deps.onUnreachable(url, error);
        const fresh = await deps.locate(true);
        // Only to another address: the same one just failed, and the call may not be safe
        // to send twice to the same chain (a transaction).
        if (attempt > 0 || fresh === url) break;
        url = fresh;
      }
    }
    throw new SandboxRpcError(-32603, SANDBOX_UNREACHABLE);
  };

  // viem's request type is generic over every method's parameters and result; a proxy passes
  // them through unchanged.
  return { request: request as EIP1193RequestFn };
}
