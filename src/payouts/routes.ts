import type { Clock } from '../base/clock.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { ProtocolFeeConfig } from '../config/protocol-fee.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { registerActivateByPayToken } from './routes/activate-by-pay-token.ts';
import { registerActivateRecurringPayout } from './routes/activate-recurring-payout.ts';
import { registerCreateBatchPayout } from './routes/create-batch-payout.ts';
import { registerCreateBatchPayoutLink } from './routes/create-batch-payout-link.ts';
import { registerCreateMulticallPayout } from './routes/create-multicall-payout.ts';
import { registerCreatePayout } from './routes/create-payout.ts';
import { registerCreatePayoutLink } from './routes/create-payout-link.ts';
import { registerGetMulticallPayout } from './routes/get-multicall-payout.ts';
import { registerGetPayerApproval } from './routes/get-payer-approval.ts';
import { registerGetPayerView } from './routes/get-payer-view.ts';
import { registerGetRecurringPayout } from './routes/get-recurring-payout.ts';
import { registerListRecurringPayouts } from './routes/list-recurring-payouts.ts';
import { registerUpdateRecurringPayout } from './routes/update-recurring-payout.ts';

export function payoutRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    clients: ChainClients;
    payUrl: string;
    /** The operator's fee, in payout links' fee plans. */
    protocolFee: ProtocolFeeConfig | null;
    /** The most children a multicall payout takes (`MULTICALL_MAX_CHILDREN`). */
    maxChildren: number;
  },
): void {
  registerCreatePayout(app, deps);
  registerCreateBatchPayout(app, deps);
  // A recurring payout by its id: the account's calls.
  registerActivateRecurringPayout(app, deps);
  registerGetRecurringPayout(app, deps);
  registerListRecurringPayouts(app, deps);
  registerUpdateRecurringPayout(app, deps);
  // By its pay token: the payer's page.
  registerGetPayerView(app, deps);
  registerGetPayerApproval(app, deps);
  registerActivateByPayToken(app, deps);
  // Payout links and multicall payouts: links under /v2/secure-payments, paid from the creator.
  registerCreatePayoutLink(app, deps);
  registerCreateBatchPayoutLink(app, deps);
  registerCreateMulticallPayout(app, deps);
  registerGetMulticallPayout(app, deps);
}
