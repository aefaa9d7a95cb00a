import type { Clock } from '../base/clock.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { RouteQuoter } from '../crosschain/quote-route.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import type { ScreeningService } from '../screening/screen.ts';
import type { CryptoToFiatPayee } from './pay.ts';
import { registerCreateRequest } from './routes/create-request.ts';
import { registerExportRequests } from './routes/export-requests.ts';
import { registerGetRequest } from './routes/get-request.ts';
import { registerGetRequestRoutes } from './routes/get-request-routes.ts';
import { registerListRequests } from './routes/list-requests.ts';
import { registerPayRequest } from './routes/pay-request.ts';
import { registerSendPaymentIntent } from './routes/send-payment-intent.ts';
import { registerUpdateRequest } from './routes/update-request.ts';
import { RequestStatusSchema } from './schemas.ts';

export function requestRoutes(
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
    /** Crypto-to-fiat `/pay` (src/offramp/), where an off-ramp provider is configured. */
    cryptoToFiat?: CryptoToFiatPayee | undefined;
  },
): void {
  // The status the routes answer with, referenced by its id.
  app.addSchema(RequestStatusSchema);
  registerCreateRequest(app, deps);
  registerListRequests(app, deps);
  registerGetRequest(app, deps);
  registerUpdateRequest(app, deps);
  registerPayRequest(app, deps);
  registerGetRequestRoutes(app, deps);
  registerSendPaymentIntent(app);
  registerExportRequests(app, deps);
}
