import type { App } from '../http/types.ts';
import { registerLiveness } from './routes/get-liveness.ts';
import { type ReadinessDeps, registerReadiness } from './routes/get-readiness.ts';

/**
 * Liveness says the process answers; readiness says it can reach its database, and carries
 * the recurring relayers' balance check as a detail (a relayer short of gas does not take the
 * process out of a load balancer: every other route still works).
 *
 * The reference's health checks (Request API `GET /v2/health`, Auth API `GET /v1/health`, no
 * credentials, no documented body) answer as readiness does: a monitor pointed at them asks
 * whether the service can serve, and a process that answers without its database cannot.
 */
export function healthRoutes(app: App, deps: ReadinessDeps): void {
  registerLiveness(app);
  registerReadiness(app, deps);
  registerReadiness(app, deps, '/v2/health');
  registerReadiness(app, deps, '/v1/health');
}
