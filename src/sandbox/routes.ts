import type { App } from '../http/types.ts';
import type { Eip1193Provider } from './chain.ts';
import { registerSandboxTransaction } from './routes/get-transaction.ts';
import { registerSandboxRpc } from './routes/serve-rpc.ts';

/**
 * The sandbox chain's explorer page (`/sandbox/tx/{txHash}`) and its JSON-RPC on the service's own listener, so a browser wallet or a script
 * can use it with nothing else running, and `sandbox_setRate` (rate-rpc.ts) for scripts. Open
 * to any origin (server/cors.ts): the chain holds no real value; what a page may ask is
 * json-rpc.ts's to say.
 */
export function sandboxRoutes(app: App, deps: { provider: Eip1193Provider }): void {
  registerSandboxRpc(app, deps);
  registerSandboxTransaction(app, deps);
}
