import type { Clock } from '../base/clock.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { RouteQuoter } from '../crosschain/quote-route.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import type { ScreeningService } from '../screening/screen.ts';
import { registerCreateV1Request } from './routes/create-request.ts';
import { registerGetV1Request } from './routes/get-request.ts';
import { registerGetV1RequestRoutes } from './routes/get-request-routes.ts';
import { registerPayNewV1Request } from './routes/pay-new-request.ts';
import { registerPayV1Request } from './routes/pay-request.ts';
import { registerStopV1Recurrence } from './routes/stop-recurrence.ts';

/** The v1 request operations Request API 0.31.0 still lists, over the v2 request code. */
export function v1Routes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    clients: ChainClients;
    /** Cross-chain routes for `/pay?chain=&token=`: one quoter per process. */
    routes: RouteQuoter;
    /** The payer rules of a link hold on its requests' `/pay` and `/routes` (src/screening/). */
    screening: ScreeningService;
    wakeDispatcher?: (() => void) | undefined;
  },
): void {
  registerCreateV1Request(app, deps);
  registerGetV1Request(app, deps);
  registerStopV1Recurrence(app, deps);
  registerPayV1Request(app, deps);
  registerGetV1RequestRoutes(app, deps);
  registerPayNewV1Request(app, deps);
}
