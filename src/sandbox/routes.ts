import type { App } from '../http/types.ts';
import type { Eip1193Provider } from './chain.ts';
import { registerSandboxTransaction } from './routes/get-transaction.ts';
import { registerSandboxRpc } from './routes/serve-rpc.ts';

/**
 * The sandbox chain's explorer page (`/sandbox/tx/{txHash}`) and its JSON-RPC on the service's own listener (and the second chain's, under `/sandbox-b/`), so a browser wallet or a script
 * can use it with nothing else running, and `sandbox_setRate` (rate-rpc.ts) for scripts. Open
 * to any origin (server/cors.ts): the chain holds no real value; what a page may ask is
 * json-rpc.ts's to say.
 */
export function sandboxRoutes(
  app: App,
  deps: {
    provider: Eip1193Provider;
    /** The second chain, when the sandbox runs one: the same at `/sandbox-b/…`. */
    second?: { readonly provider: Eip1193Provider } | null | undefined;
  },
): void {
  // The sandbox host passes itself: only its provider is taken (its `network` is no path).
  const first = { provider: deps.provider, network: 'sandbox' };
  registerSandboxRpc(app, first);
  registerSandboxTransaction(app, first);
  if (deps.second) {
    const second = { provider: deps.second.provider, network: 'sandbox-b' };
    registerSandboxRpc(app, second);
    registerSandboxTransaction(app, second);
  }
}
