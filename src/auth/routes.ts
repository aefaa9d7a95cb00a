import type { Clock } from '../base/clock.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { registerCreateWalletChallenge } from './routes/create-wallet-challenge.ts';
import { registerGetSession } from './routes/get-session.ts';
import { registerLogIn } from './routes/log-in.ts';
import { registerLogOut } from './routes/log-out.ts';
import { registerSignUp } from './routes/sign-up.ts';
import { registerVerifyWalletChallenge } from './routes/verify-wallet-challenge.ts';

/** Sign-in on the auth API: e-mail and password, or a wallet (SIWE); both set the session cookie. */
export function authRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    config: Pick<Config, 'authUrl' | 'networks'>;
    clients: ChainClients;
  },
): void {
  // E-mail and password
  registerSignUp(app, deps);
  registerLogIn(app, deps);
  // The session, however it was started
  registerLogOut(app, deps);
  registerGetSession(app, deps);
  // Wallets
  registerCreateWalletChallenge(app, deps);
  registerVerifyWalletChallenge(app, deps);
}
