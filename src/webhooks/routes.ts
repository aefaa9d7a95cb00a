import type { Clock } from '../base/clock.ts';
import type { SecretBox } from '../base/secret-box.ts';
import type { WebhookConfig } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import { registerCreateWebhook } from './routes/create-webhook.ts';
import { registerDeleteWebhook } from './routes/delete-webhook.ts';
import { registerListDeliveries } from './routes/list-deliveries.ts';
import { registerListRequestDeliveries } from './routes/list-request-deliveries.ts';
import { registerListWebhooks } from './routes/list-webhooks.ts';
import { registerRedeliver } from './routes/redeliver.ts';
import { registerSendTestEvent } from './routes/send-test-event.ts';
import { registerSetRetryPolicy } from './routes/set-retry-policy.ts';
import { registerUpdateWebhook } from './routes/update-webhook.ts';

/** Webhook endpoints on the auth API (`/v1/webhook`). */
export function webhookRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    secretBox: SecretBox;
    config: WebhookConfig;
    wake?: () => void;
  },
): void {
  // Registration and management.
  registerCreateWebhook(app, deps);
  registerListWebhooks(app, deps);
  registerUpdateWebhook(app, deps);
  registerSetRetryPolicy(app, deps);
  registerDeleteWebhook(app, deps);
  // Deliveries: the test event, the log, redelivery.
  registerSendTestEvent(app, deps);
  registerListDeliveries(app, deps);
  registerRedeliver(app, deps);
  // A request's deliveries, for the dashboard's link page.
  registerListRequestDeliveries(app, deps);
}
