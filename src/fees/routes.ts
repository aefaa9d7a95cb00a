import type { Clock } from '../base/clock.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { registerCreateFeeConfig } from './routes/create-fee-config.ts';
import { registerDisableFeeConfig } from './routes/disable-fee-config.ts';
import { registerListFeeConfigs } from './routes/list-fee-configs.ts';
import { registerUpdateFeeConfig } from './routes/update-fee-config.ts';

/** The calling orchestrator's fee configs (`x-orchestrator-key`). */
export function feeRoutes(app: App, deps: { db: Database; clock: Clock }): void {
  registerCreateFeeConfig(app, deps);
  registerListFeeConfigs(app, deps);
  registerUpdateFeeConfig(app, deps);
  registerDisableFeeConfig(app, deps);
}
