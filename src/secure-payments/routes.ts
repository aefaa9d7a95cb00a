import type { Clock } from '../base/clock.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { TronGridClient } from '../chains/tron-grid.ts';
import type { ProtocolFeeConfig } from '../config/protocol-fee.ts';
import type { PaymentOptionsReader } from '../crosschain/payment-options.ts';
import type { RouteQuoter } from '../crosschain/quote-route.ts';
import type { Database } from '../db/client.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { App } from '../http/types.ts';
import type { ScreeningService } from '../screening/screen.ts';
import type { ParentLinks } from './parent-links.ts';
import { registerBroadcastTronTransaction } from './routes/broadcast-tron-transaction.ts';
import { registerCreateLink } from './routes/create-link.ts';
import { registerGetLink } from './routes/get-link.ts';
import { registerGetLinkItem } from './routes/get-link-item.ts';
import { registerListLinks } from './routes/list-links.ts';
import { registerPayLink } from './routes/pay-link.ts';
import { registerRecordIntent } from './routes/record-intent.ts';
import { registerRecordMulticallIntent } from './routes/record-multicall-intent.ts';
import { registerRefreshStepTransaction } from './routes/refresh-step-transaction.ts';
import { registerReportUserEvent } from './routes/report-user-event.ts';

/**
 * `/v2/secure-payments`: links. Payout links and multicall payouts share the prefix but are
 * registered by payouts (`src/payouts/routes.ts`).
 */
export function securePaymentRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    clients: ChainClients;
    payUrl: string;
    /** The operator's fee, in every link's fee plan. */
    protocolFee: ProtocolFeeConfig | null;
    /** How multicall parents are shown and paid (payouts). */
    parents: ParentLinks;
    /** The payer's balances per source chain and token, on a link's display with `wallet`. */
    paymentOptions: PaymentOptionsReader;
    /** Cross-chain routes through the aggregator (`/pay?chain=&token=`): one per process. */
    routes: RouteQuoter;
    /** The Tron full node at `RPC_URL_TRON`; null when none is configured. */
    tronNode: TronGridClient | null;
    /** Screens the payers of links that ask for it (src/screening/). */
    screening: ScreeningService;
    rateLimiter?: RateLimiter | undefined;
    /** Called once a user event is queued, so that it goes out at once. */
    wakeDispatcher?: (() => void) | undefined;
  },
): void {
  registerCreateLink(app, deps);
  registerListLinks(app, deps);
  registerGetLinkItem(app, deps);
  // By token: what its page shows, its calldata, and what its payer's wallet did.
  registerGetLink(app, deps);
  registerPayLink(app, deps);
  registerRefreshStepTransaction(app, deps);
  registerBroadcastTronTransaction(app, deps);
  registerReportUserEvent(app, deps);
  registerRecordIntent(app, deps);
  registerRecordMulticallIntent(app, deps);
}
