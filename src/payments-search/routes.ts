import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { registerExportPayments } from './routes/export-payments.ts';
import { registerGetTransactionHistory } from './routes/get-transaction-history.ts';
import { registerSearchPayments } from './routes/search-payments.ts';

export function paymentSearchRoutes(app: App, deps: { db: Database; chains: ChainRegistry }): void {
  registerSearchPayments(app, deps);
  registerExportPayments(app, deps);
  registerGetTransactionHistory(app, deps);
}
