import type { Clock } from '../base/clock.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { registerCancelWalletChange } from './routes/cancel-wallet-change.ts';
import { registerChangeSessionDestination } from './routes/change-session-destination.ts';
import { registerCreateSessionDestination } from './routes/create-session-destination.ts';
import { registerDeactivateDestination } from './routes/deactivate-destination.ts';
import { registerGetSessionDestination } from './routes/get-session-destination.ts';
import { registerLookupDestination } from './routes/lookup-destination.ts';
import { registerLookupPayoutDestination } from './routes/lookup-payout-destination.ts';

/**
 * Payee destinations on the auth API: the signed-in wallet sets where it wants to be paid. The
 * SIWE sign-in already proved the wallet, so no per-change signature is asked for, unlike /v2.
 * Destinations are the same records as /v2's: one model, two ways to endorse it.
 */
export function payeeDestinationV1Routes(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry },
): void {
  // For the session's wallet: they need a wallet session.
  registerCreateSessionDestination(app, deps);
  registerChangeSessionDestination(app, deps);
  registerGetSessionDestination(app, deps);
  // Any wallet's: where it wants to be paid, whoever asks (see payoutDestinationOf).
  registerLookupPayoutDestination(app, deps);
  // On the session's account, as an API key acts on /v2: any session of the account may.
  registerLookupDestination(app, deps);
  registerDeactivateDestination(app, deps);
  registerCancelWalletChange(app);
}
