import type { Clock } from '../base/clock.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { ProtocolFeeConfig } from '../config/protocol-fee.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { registerCreateFeeConfig } from './routes/create-fee-config.ts';
import { registerDisableFeeConfig } from './routes/disable-fee-config.ts';
import { registerListFeeConfigs } from './routes/list-fee-configs.ts';
import { registerPreviewFees } from './routes/preview-fees.ts';
import { registerUpdateFeeConfig } from './routes/update-fee-config.ts';

/** The calling orchestrator's fee configs (`x-orchestrator-key`), and the fee-plan preview. */
export function feeRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    protocolFee: ProtocolFeeConfig | null;
  },
): void {
  registerCreateFeeConfig(app, deps);
  registerListFeeConfigs(app, deps);
  registerUpdateFeeConfig(app, deps);
  registerDisableFeeConfig(app, deps);
  registerPreviewFees(app, deps);
}
