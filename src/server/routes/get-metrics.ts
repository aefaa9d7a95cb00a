import type { SecretText } from '../../config/crosschain.ts';
import type { App } from '../../http/types.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import { scrapeRefusal } from '../../metrics/scrape-auth.ts';

/**
 * `GET /metrics` on the API's own port, behind `METRICS_TOKEN` (served only when one is set and
 * no listener of its own is asked for). Left out of the OpenAPI document: it is the operator's,
 * not the API's, and no reference client calls it. Never shed by admission: a scrape is how an
 * overload is seen.
 */
export function registerMetrics(app: App, metrics: Metrics, token: SecretText): void {
  app.get(
    '/metrics',
    { config: { admission: false }, schema: { hide: true } },
    async (request, reply) => {
      const refusal = scrapeRefusal(token, request.headers.authorization);
      if (refusal) return reply.code(refusal.statusCode).send(refusal);
      const text = await metrics.scrape();
      return reply.type(metrics.contentType).header('cache-control', 'no-store').send(text);
    },
  );
}
