import type { Clock } from '../base/clock.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { registerGetSummary } from './routes/get-summary.ts';

/**
 * The API routes only the dashboard needs (served wherever the API is, whether or not this
 * process serves the dashboard's pages).
 */
export function dashboardApiRoutes(
  app: App,
  deps: { readonly db: Database; readonly clock: Clock; readonly chains: ChainRegistry },
): void {
  registerGetSummary(app, deps);
}
