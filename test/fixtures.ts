import { createAccount } from '../src/auth/accounts.ts';
import { createClientId } from '../src/auth/client-ids.ts';
import type { Database } from '../src/db/client.ts';

export const SHOP_ORIGIN = 'https://shop.example';

export interface Tenant {
  readonly accountId: string;
  readonly apiKey: string;
  /** Works only from SHOP_ORIGIN. */
  readonly browserClientId: string;
  /** No allowed domains: server-side use, no Origin check. */
  readonly backendClientId: string;
}

/** An account with an API key, a browser client ID and a backend client ID, made the real way. */
export async function createTenant(db: Database, name = 'Shop'): Promise<Tenant> {
  const { accountId, apiKey } = await createAccount(db, name);
  const browser = await createClientId(db, {
    accountId,
    label: 'Web shop',
    allowedDomains: [SHOP_ORIGIN],
  });
  const backend = await createClientId(db, { accountId, label: 'Backend', allowedDomains: [] });
  return {
    accountId,
    apiKey,
    browserClientId: browser.clientId,
    backendClientId: backend.clientId,
  };
}
