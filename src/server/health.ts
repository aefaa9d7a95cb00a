import type { App } from '../http/types.ts';
import { registerLiveness } from './routes/get-liveness.ts';
import { type ReadinessDeps, registerReadiness } from './routes/get-readiness.ts';

/**
 * Liveness says the process answers; readiness says it can reach its database, and carries
 * the recurring relayers' balance check as a detail (a relayer short of gas does not take the
 * process out of a load balancer: every other route still works).
 */
export function healthRoutes(app: App, deps: ReadinessDeps): void {
  registerLiveness(app);
  registerReadiness(app, deps);
}
