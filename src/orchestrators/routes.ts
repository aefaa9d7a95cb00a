import type { Clock } from '../base/clock.ts';
import type { SecretBox } from '../base/secret-box.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { WebhookConfig } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import type { App } from '../http/types.ts';
import type { IntentBrandingOf } from './link-intents.ts';
import { registerCompleteLinkIntent } from './routes/complete-link-intent.ts';
import { registerCreateLinkIntent } from './routes/create-link-intent.ts';
import { registerCreateOrchestrator } from './routes/create-orchestrator.ts';
import { registerCreateOrchestratorWebhook } from './routes/create-webhook.ts';
import { registerLinkClientId } from './routes/link-client-id.ts';
import { registerListClientIdLinks } from './routes/list-client-id-links.ts';
import { registerListOrchestratorWebhooks } from './routes/list-webhooks.ts';
import { registerSwitchOrchestratorWebhook } from './routes/switch-webhook.ts';
import { registerTestOrchestratorWebhooks } from './routes/test-webhooks.ts';
import { registerUnlinkClientId } from './routes/unlink-client-id.ts';
import { registerUnlinkOrchestrator } from './routes/unlink-orchestrator.ts';
import { registerUpdateKytPlan } from './routes/update-kyt-plan.ts';
import { registerValidateLinkIntent } from './routes/validate-link-intent.ts';

/**
 * Creating an orchestrator (a signed-in user, for their account), then the client-ID links of
 * the calling orchestrator (`x-orchestrator-key`) and its webhook endpoints.
 */
export function orchestratorRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    secretBox: SecretBox;
    webhooks: WebhookConfig;
    chains: ChainRegistry;
    payUrl: string;
    /** The orchestrator's own branding, for its intents' page (branding/, wired in by server/). */
    brandingOf: IntentBrandingOf;
  },
): void {
  registerCreateOrchestrator(app, deps);
  registerListClientIdLinks(app, deps);
  registerLinkClientId(app, deps);
  registerUnlinkClientId(app, deps);
  // The merchant's side: unlinking its client ID's orchestrator.
  registerUnlinkOrchestrator(app, deps);
  // The orchestrator's own endpoints (api-facts §11.6).
  const hooks = { ...deps, config: deps.webhooks };
  registerCreateOrchestratorWebhook(app, hooks);
  registerListOrchestratorWebhooks(app, hooks);
  registerSwitchOrchestratorWebhook(app, hooks);
  registerTestOrchestratorWebhooks(app, hooks);
  // Link intents: the orchestrator's invitation, and the merchant's side (Auth API, a session).
  registerCreateLinkIntent(app, deps);
  registerValidateLinkIntent(app, deps);
  registerCompleteLinkIntent(app, deps);
  registerUpdateKytPlan(app, deps);
}
