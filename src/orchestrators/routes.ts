import type { Clock } from '../base/clock.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { registerCreateOrchestrator } from './routes/create-orchestrator.ts';
import { registerLinkClientId } from './routes/link-client-id.ts';
import { registerListClientIdLinks } from './routes/list-client-id-links.ts';
import { registerUnlinkClientId } from './routes/unlink-client-id.ts';

/**
 * Creating an orchestrator (a signed-in user, for their account), then the client-ID links of
 * the calling orchestrator (`x-orchestrator-key`).
 */
export function orchestratorRoutes(app: App, deps: { db: Database; clock: Clock }): void {
  registerCreateOrchestrator(app, deps);
  registerListClientIdLinks(app, deps);
  registerLinkClientId(app, deps);
  registerUnlinkClientId(app, deps);
}
