import type { App } from '../http/types.ts';
import type { CommerceDeps } from './deps.ts';
import { registerAuthorize } from './routes/authorize.ts';
import { registerAuthorizeCalldata } from './routes/authorize-calldata.ts';
import { registerCapture } from './routes/capture.ts';
import { registerCaptureCalldata } from './routes/capture-calldata.ts';
import { registerGetBuyerAuthorize } from './routes/get-buyer-authorize.ts';
import { registerGetBuyerReclaim } from './routes/get-buyer-reclaim.ts';
import { registerGetByPayToken } from './routes/get-by-pay-token.ts';
import { registerGetStatus } from './routes/get-status.ts';
import { registerPostBuyerAuthorization } from './routes/post-buyer-authorization.ts';
import { registerRefund } from './routes/refund.ts';
import { registerRefundCalldata } from './routes/refund-calldata.ts';
import { registerVoid } from './routes/void.ts';
import { registerVoidCalldata } from './routes/void-calldata.ts';

/** `/v2/commerce-payments` (docs/guides/commerce.md). */
export function commerceRoutes(app: App, deps: CommerceDeps): void {
  registerAuthorizeCalldata(app, deps);
  registerGetStatus(app, deps);
  registerAuthorize(app, deps);
  registerCaptureCalldata(app, deps);
  registerCapture(app, deps);
  registerVoidCalldata(app, deps);
  registerVoid(app, deps);
  registerRefundCalldata(app, deps);
  registerRefund(app, deps);
  registerGetByPayToken(app, deps);
  registerGetBuyerAuthorize(app, deps);
  registerPostBuyerAuthorization(app, deps);
  registerGetBuyerReclaim(app, deps);
}
