import type { App } from '../http/types.ts';
import type { PayerDeps } from './deps.ts';
import { registerComplianceCallback } from './routes/compliance-callback.ts';
import { registerCreatePayer } from './routes/create-payer.ts';
import { registerCreatePaymentDetails } from './routes/create-payment-details.ts';
import { registerDeletePayer } from './routes/delete-payer.ts';
import { registerGetPayer } from './routes/get-payer.ts';
import { registerListPaymentDetails } from './routes/list-payment-details.ts';
import { registerUpdatePayer } from './routes/update-payer.ts';
import { PAYER_PREFIXES } from './schemas.ts';

/** `/v2/payer` and `/v1/payer` (the same handlers), our erasure and callbacks (docs/guides/payers.md). */
export function payerRoutes(app: App, deps: PayerDeps): void {
  for (const prefix of PAYER_PREFIXES) {
    registerCreatePayer(app, deps, prefix);
    registerGetPayer(app, deps, prefix);
    registerUpdatePayer(app, deps, prefix);
    registerCreatePaymentDetails(app, deps, prefix);
    registerListPaymentDetails(app, deps, prefix);
  }
  registerDeletePayer(app, deps, '/v2/payer');
  registerComplianceCallback(app, deps);
}
