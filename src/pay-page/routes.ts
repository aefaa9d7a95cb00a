import type { App } from '../http/types.ts';
import { registerPayPageAsset } from './routes/get-asset.ts';
import { registerPayPageShell, type ShellDeps } from './routes/get-shell.ts';

/**
 * The hosted pay page at PAY_URL: `<path>/` answers the HTML shell and `<path>/assets/<file>`
 * the built files, where `<path>` is PAY_URL's path (empty at the root). Both are public (the
 * page's own API calls carry its client ID) and kept out of the OpenAPI document.
 */

export type PayPageDeps = ShellDeps;

export function payPageRoutes(app: App, deps: PayPageDeps): void {
  registerPayPageShell(app, deps);
  registerPayPageAsset(app, deps);
}
