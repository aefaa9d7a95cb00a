import type { Clock } from '../base/clock.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { registerLinkClientId } from './routes/link-client-id.ts';
import { registerListClientIdLinks } from './routes/list-client-id-links.ts';
import { registerUnlinkClientId } from './routes/unlink-client-id.ts';

/** Client-ID links of the calling orchestrator (`x-orchestrator-key`). */
export function orchestratorRoutes(app: App, deps: { db: Database; clock: Clock }): void {
  registerListClientIdLinks(app, deps);
  registerLinkClientId(app, deps);
  registerUnlinkClientId(app, deps);
}
