import { createServer, type Server } from 'node:http';
import type { MetricsConfig } from '../config/metrics.ts';
import type { ErrorEnvelope } from '../http/envelope.ts';
import { errorEnvelope } from '../http/envelope.ts';
import type { Metrics } from './metrics.ts';
import { scrapeRefusal } from './scrape-auth.ts';

/**
 * The listener of its own `METRICS_PORT` asks for: `GET /metrics` and nothing else, on an
 * address apart from the API's (a private interface, or loopback for a sidecar), behind
 * `METRICS_TOKEN` as well when one is set. Not listening: `main.ts` binds it.
 */
export function createMetricsListener(metrics: Metrics, config: MetricsConfig): Server {
  return createServer((request, response) => {
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    const refuse = (envelope: ErrorEnvelope) =>
      send(envelope.statusCode, 'application/json; charset=utf-8', JSON.stringify(envelope));
    // The body is never read: a scrape sends none, and anything else is refused unread.
    request.resume();
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') return refuse(errorEnvelope(404, 'Only /metrics is served here'));
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      return refuse(errorEnvelope(405, 'Use GET'));
    }
    const refusal = scrapeRefusal(config.token, request.headers.authorization);
    if (refusal) return refuse(refusal);
    metrics.scrape().then(
      (text) => send(200, metrics.contentType, request.method === 'HEAD' ? '' : text),
      () => refuse(errorEnvelope(500, 'Could not render the metrics')),
    );
  });
}
