import { createAccount } from '../src/auth/accounts.ts';
import { createClientId } from '../src/auth/client-ids.ts';
import type { Currency } from '../src/chains/currencies.ts';
import type { ChainRegistry } from '../src/chains/registry.ts';
import type { Database } from '../src/db/client.ts';
import { insertRequests, type RequestRow } from '../src/requests/requests.ts';

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

/** A request of an account for `expectedAmount` base units of USDC on `network`, written directly. */
export async function usdcRequest(
  db: Database,
  chains: ChainRegistry,
  request: {
    readonly accountId: string;
    readonly network: 'base' | 'optimism' | 'mainnet';
    readonly expectedAmount: bigint;
    readonly payee: string;
    readonly securePaymentId?: string | null;
  },
): Promise<RequestRow & { readonly usdc: Currency }> {
  const network = chains.network(request.network);
  const usdc = chains.currency(`USDC-${request.network}`);
  if (!network || !usdc?.address) throw new Error(`no USDC on ${request.network}`);
  const [row] = await insertRequests(db, [
    {
      accountId: request.accountId,
      clientIdId: null,
      network,
      invoiceCurrency: usdc,
      paymentCurrency: usdc,
      expectedAmount: request.expectedAmount,
      payee: request.payee,
      ...(request.securePaymentId !== undefined && { securePaymentId: request.securePaymentId }),
    },
  ]);
  if (!row) throw new Error('no request written');
  return { ...row, usdc };
}
