import type { App } from '../../http/types.ts';
import type { Eip1193Provider } from '../chain.ts';
import { answerJsonRpc } from '../json-rpc.ts';

/**
 * `POST /sandbox/rpc` (`/sandbox-b/rpc` for the second chain): the chain's JSON-RPC, kept out
 * of the OpenAPI document.
 */
export function registerSandboxRpc(
  app: App,
  deps: { provider: Eip1193Provider; network?: string },
): void {
  app.post(`/${deps.network ?? 'sandbox'}/rpc`, { schema: { hide: true } }, async (request) =>
    answerJsonRpc(deps.provider, request.body, {
      fromBrowser: request.headers.origin !== undefined,
    }),
  );
}
