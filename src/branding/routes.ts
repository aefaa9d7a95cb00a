import type { Clock } from '../base/clock.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { registerCreateBranding } from './routes/create-branding.ts';
import { registerDeleteBranding } from './routes/delete-branding.ts';
import { registerGetBranding } from './routes/get-branding.ts';
import { registerGetBrandingAsset } from './routes/get-branding-asset.ts';
import { registerUpdateBranding } from './routes/update-branding.ts';

/**
 * An orchestrator's brandings (`x-orchestrator-key`), and the operator's branding folder
 * (BRANDING_DIR) served beside the pay page under `/branding/`.
 */
export function brandingRoutes(
  app: App,
  deps: { db: Database; clock: Clock; dir: string; basePath: string },
): void {
  registerCreateBranding(app, deps);
  registerGetBranding(app, deps);
  registerUpdateBranding(app, deps);
  registerDeleteBranding(app, deps);
  registerGetBrandingAsset(app, deps);
}
