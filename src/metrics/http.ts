import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.ts';

/** The route label of a request that matched no route: one series for every stray URL. */
const UNMATCHED = 'unmatched';

/**
 * Counts every answer by its route pattern (`/v2/request/:requestId`, never the URL itself,
 * whose ids would make a series per request), status and duration; a 429 is also a rate-limit
 * refusal (nothing else answers it). The hook runs after the answer is sent, so counting costs
 * the caller nothing.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    const status = reply.statusCode;
    metrics.httpRequest({
      method: request.method,
      route,
      status,
      seconds: reply.elapsedTime / 1000,
    });
    if (status === 429) metrics.rateLimited(route);
    done();
  });
}
