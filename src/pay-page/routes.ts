import type { App } from '../http/types.ts';
import { registerWebAppAssets } from '../http/web-asset-route.ts';
import { type IntentShellDeps, registerIntentShell } from './routes/get-intent-shell.ts';
import { registerPayPageShell } from './routes/get-shell.ts';
import { payPagePath } from './shell.ts';

/**
 * The hosted pay page at PAY_URL: `<path>/` answers the HTML shell and `<path>/assets/<file>`
 * the built files, where `<path>` is PAY_URL's path (empty at the root); `<path>/link/<token>`
 * the page of a link intent, from the same build. All are public (the payment page's own API
 * calls carry its client ID; the intent page's, the merchant's session) and kept out of the
 * OpenAPI document.
 */

export type PayPageDeps = IntentShellDeps;

export function payPageRoutes(app: App, deps: PayPageDeps): void {
  registerPayPageShell(app, deps);
  registerWebAppAssets(app, { basePath: payPagePath(deps.config.payUrl), build: deps.build });
  registerIntentShell(app, deps);
}
