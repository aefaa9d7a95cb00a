import type { Clock } from '../base/clock.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { HOP_SOURCES, type HopSource } from './hops.ts';
import { registerCreateJourney } from './routes/create-journey.ts';
import { registerGetJourney } from './routes/get-journey.ts';
import { registerRecordStep } from './routes/record-step.ts';

/** `/v2/journey`: a request's payment traced across processors, with payreq's own hops. */
export function journeyRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    /** Hops of payreq's beyond those every journey reads (the bridge tracker's, say). */
    hopSources?: readonly HopSource[] | undefined;
  },
): void {
  registerCreateJourney(app, deps);
  registerRecordStep(app, deps);
  registerGetJourney(app, { ...deps, hopSources: [...HOP_SOURCES, ...(deps.hopSources ?? [])] });
}
