import type { Clock } from '../base/clock.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { OfframpConfig } from '../config/offramp.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import type { CryptoToFiatPayee } from '../requests/pay.ts';
import { createOfframpProvider, type OfframpProvider } from './provider.ts';
import { registerReceiveCallback } from './routes/receive-callback.ts';
import { transferFor } from './transfers.ts';

/** The off-ramp's callback route. */
export function offrampRoutes(
  app: App,
  deps: {
    readonly db: Database;
    readonly chains: ChainRegistry;
    readonly clock: Clock;
    readonly config: OfframpConfig;
  },
): void {
  registerReceiveCallback(app, { ...deps, secret: deps.config.webhookSecret });
}

/**
 * `/pay`'s crypto-to-fiat hook (requests/pay.ts), where a provider is configured: the transfer
 * for the request and payment details, its deposit address the payee.
 */
export function cryptoToFiatPayee(deps: {
  readonly db: Database;
  readonly chains: ChainRegistry;
  readonly config: OfframpConfig;
  readonly provider?: OfframpProvider;
}): CryptoToFiatPayee | undefined {
  const { url } = deps.config;
  if (url === null) return undefined;
  const provider = deps.provider ?? createOfframpProvider({ ...deps.config, url });
  return async (row, ids, amount) =>
    (await transferFor({ db: deps.db, chains: deps.chains, provider }, row, ids, amount))
      .depositAddress;
}
