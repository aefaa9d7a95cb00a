import type { ChainRegistry } from '../chains/registry.ts';
import type { App } from '../http/types.ts';
import { registerGetConversionRoutes } from './routes/get-conversion-routes.ts';
import { registerListCurrencies } from './routes/list-currencies.ts';
import { CurrencySchema } from './schemas.ts';

export function currencyRoutes(app: App, deps: { chains: ChainRegistry }): void {
  // The currency the routes answer with, referenced by its id.
  app.addSchema(CurrencySchema);
  registerListCurrencies(app, deps);
  registerGetConversionRoutes(app, deps);
}
