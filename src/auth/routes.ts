import type { Clock } from '../base/clock.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { V1_CLIENT_IDS, V2_CLIENT_IDS } from './client-id-schemas.ts';
import { registerCreateApiKey } from './routes/create-api-key.ts';
import { registerCreateClientId } from './routes/create-client-id.ts';
import { registerCreateWalletChallenge } from './routes/create-wallet-challenge.ts';
import { registerGetClientId } from './routes/get-client-id.ts';
import { registerGetSession } from './routes/get-session.ts';
import { registerListApiKeys } from './routes/list-api-keys.ts';
import { registerListClientIds } from './routes/list-client-ids.ts';
import { registerLogIn } from './routes/log-in.ts';
import { registerLogOut } from './routes/log-out.ts';
import { registerRevokeApiKey } from './routes/revoke-api-key.ts';
import { registerRevokeClientId } from './routes/revoke-client-id.ts';
import { registerSignUp } from './routes/sign-up.ts';
import { registerUpdateClientId } from './routes/update-client-id.ts';
import { registerVerifyWalletChallenge } from './routes/verify-wallet-challenge.ts';

/** Sign-in on the auth API: e-mail and password, or a wallet (SIWE); both set the session cookie. */
export function authRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    config: Pick<Config, 'authUrl' | 'networks' | 'dashboardUrl' | 'baseUrl'>;
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

/** Client IDs of the caller's account: `/v2` with an API key, `/v1` with the dashboard's session. */
export function clientIdRoutes(app: App, deps: { db: Database; clock: Clock }): void {
  registerCreateClientId(app, { ...deps, surface: V2_CLIENT_IDS });
  registerListClientIds(app, { ...deps, surface: V2_CLIENT_IDS });
  registerGetClientId(app, { ...deps, surface: V2_CLIENT_IDS });
  registerUpdateClientId(app, { ...deps, surface: V2_CLIENT_IDS });
  registerRevokeClientId(app, { ...deps, surface: V2_CLIENT_IDS });

  registerCreateClientId(app, { ...deps, surface: V1_CLIENT_IDS });
  registerListClientIds(app, { ...deps, surface: V1_CLIENT_IDS });
  registerGetClientId(app, { ...deps, surface: V1_CLIENT_IDS });
  registerUpdateClientId(app, { ...deps, surface: V1_CLIENT_IDS });
  registerRevokeClientId(app, { ...deps, surface: V1_CLIENT_IDS });
}

/** API keys of the dashboard's signed-in user's account. */
export function apiKeyRoutes(app: App, deps: { db: Database; clock: Clock }): void {
  registerCreateApiKey(app, deps);
  registerListApiKeys(app, deps);
  registerRevokeApiKey(app, deps);
}
