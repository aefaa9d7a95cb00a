import type { Clock } from '../base/clock.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { registerAddSignedDestination } from './routes/add-signed-destination.ts';
import { registerDeactivateSignedDestination } from './routes/deactivate-signed-destination.ts';
import { registerGetDestination } from './routes/get-destination.ts';
import { registerGetSigningData } from './routes/get-signing-data.ts';
import { registerGetWalletDestination } from './routes/get-wallet-destination.ts';
import { registerListDestinations } from './routes/list-destinations.ts';
import { DestinationSchema } from './schemas.ts';

/**
 * Payee destinations on the request API: a wallet proves it wants to be paid somewhere by
 * signing EIP-712 typed data carrying a single-use nonce.
 */
export function destinationRoutes(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry },
): void {
  // The destination the routes answer with, referenced by its id.
  app.addSchema(DestinationSchema);
  registerGetSigningData(app, deps);
  registerAddSignedDestination(app, deps);
  registerGetWalletDestination(app, deps);
  registerGetDestination(app, deps);
  registerDeactivateSignedDestination(app, deps);
  registerListDestinations(app, deps);
}
