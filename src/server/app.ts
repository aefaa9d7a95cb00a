import cookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { createUsageRecorder, type UsageRecorder } from '../auth/usage.ts';
import { DASHBOARD_DIST } from '../dashboard/shell.ts';
import { cookieWriteOrigins } from '../http/cookie-writes.ts';
import { createCredentialCache } from '../http/credential-cache.ts';
import type { App } from '../http/types.ts';
import { validationOptions } from '../http/validation.ts';
import { loadWebAppBuild } from '../http/web-assets.ts';
import { installIdempotency } from '../idempotency/hooks.ts';
import { installHttpMetrics } from '../metrics/http.ts';
import { ensurePayPageClientId } from '../pay-page/client-id.ts';
import { PAY_PAGE_DIST } from '../pay-page/shell.ts';
import { SHARED_SCHEMAS } from '../payments/schemas.ts';
import { MULTICALL_SCHEMAS } from '../payouts/multicall/schemas.ts';
import { installAdmission } from './admission.ts';
import type { AppDeps } from './app-deps.ts';
import { installCors } from './cors.ts';
import { installAuth, installAuthGate } from './credentials.ts';
import {
  clientErrorHandler,
  installErrorHandling,
  installHttpGuards,
  sendRawEnvelope,
} from './error-handler.ts';
import { registerFeatureRoutes } from './feature-routes.ts';
import { installInputGuard } from './input-guard.ts';
import { installOpenApi } from './openapi.ts';
import { installFailedCredentialLimit, installRateLimit } from './rate-limit-hooks.ts';
import { REQUEST_ID_HEADER, requestId } from './request-id.ts';
import { lazyRequestLogger } from './request-logger.ts';
import { type RouteEntry, recordRoutes } from './route-table.ts';
import { registerMetrics } from './routes/get-metrics.ts';

const MAX_PARAM_LENGTH = 256;

/** Largest JSON body we parse (the biggest legitimate one is a batch of a few hundred items). */
const BODY_LIMIT_BYTES = 1_048_576;

export interface BuiltApp {
  readonly app: App;
  readonly usage: UsageRecorder;
  readonly routes: readonly RouteEntry[];
}

/**
 * The HTTP application, fully wired but not listening: `main.ts` listens, tests use
 * `app.inject()`. Register extra routes (tests do) before calling `app.ready()`.
 */
export async function buildApp(deps: AppDeps): Promise<BuiltApp> {
  const app: App = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast only widens its generic parameter.
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: requestId,
    childLoggerFactory: lazyRequestLogger,
    // Behind a proxy, request.ip (the rate limits' key) must come from X-Forwarded-For.
    // Fastify takes all three forms; its overloads do not type-check the union, hence the cast.
    trustProxy: deps.config.trustProxy as boolean,
    bodyLimit: BODY_LIMIT_BYTES,
    ...validationOptions(),
    routerOptions: {
      ignoreTrailingSlash: true,
      // Destination ids run to ~120 characters in a path segment.
      maxParamLength: MAX_PARAM_LENGTH,
      onMaxParamLength: (_path, request, response) =>
        sendRawEnvelope(
          response,
          'uri_too_long',
          `Path segments are limited to ${MAX_PARAM_LENGTH} characters`,
          requestId(request),
        ),
    },
    frameworkErrors: (error, request, reply) => {
      reply.hijack();
      sendRawEnvelope(reply.raw, 'bad_url', error.message, request.id);
    },
    clientErrorHandler,
    // A request without Host reaches us (Node would refuse it with an empty body): see
    // installHttpGuards, which refuses it in the envelope.
    http: { requireHostHeader: false },
  }).withTypeProvider();

  const routes = recordRoutes(app);
  const db = deps.database.db;
  // The pay page calls the API with a client ID of its own; it must exist before the page does.
  const payPageClientId = await ensurePayPageClientId(db, deps.config.payUrl);
  const payPageBuild = await loadWebAppBuild(deps.payPageDir ?? PAY_PAGE_DIST);
  const dashboardBuild = await loadWebAppBuild(deps.dashboardDir ?? DASHBOARD_DIST);
  const usage = createUsageRecorder({ db, clock: deps.clock, logger: deps.logger });
  const credentials = createCredentialCache({ clock: deps.clock });

  // The hooks every request runs are callback-style where they never wait: no promise each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  // While closing, answers end their keep-alive connection: Fastify closes only connections
  // idle at the moment it starts closing, and one busy then would otherwise hold the process
  // open until its keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  if (deps.metrics) installHttpMetrics(app, deps.metrics);
  installErrorHandling(app);
  installHttpGuards(app);
  // First of the gates: a refused request costs no credential lookup.
  if (deps.config.admission) installAdmission(app, deps.config.admission);
  // Bodies are JSON: a text/plain body answers 415, as docs/errors.md says, instead of
  // reaching validation as a string.
  app.removeContentTypeParser('text/plain');
  installInputGuard(app);
  await app.register(cookie);
  // Before auth: an IP that keeps sending bad credentials is turned away before the lookup.
  // The configured budgets (RATE_LIMIT_*), with a caller's overrides (tests) on top.
  const limitOptions = { limits: { ...deps.config.rateLimits, ...deps.rateLimits } };
  if (deps.rateLimiter) installFailedCredentialLimit(app, deps.rateLimiter, limitOptions);
  installAuth(app, {
    db,
    usage,
    clock: deps.clock,
    credentials,
    cookieWriteOrigins: cookieWriteOrigins(deps.config),
  });
  // Between resolving the caller and refusing a bad one: the grant depends on the client ID,
  // and a browser must still be able to read a refusal (the dashboard's 401, say).
  await installCors(app, {
    routes,
    dashboardUrl: deps.config.dashboardUrl,
    payUrl: deps.config.payUrl,
  });
  installAuthGate(app);
  // After auth: a budget belongs to the caller the auth hook resolved.
  if (deps.rateLimiter) installRateLimit(app, deps.rateLimiter, limitOptions);
  // After auth (a key belongs to the caller) and the refusals before it, which keep nothing.
  installIdempotency(app, { db, clock: deps.clock });
  await installOpenApi(app, deps.config);

  for (const schema of [...SHARED_SCHEMAS, ...MULTICALL_SCHEMAS]) app.addSchema(schema);
  registerFeatureRoutes(app, deps, {
    payPage: { clientId: payPageClientId, build: payPageBuild },
    dashboard: dashboardBuild,
  });
  const scrape = deps.config.metrics;
  if (deps.metrics && scrape?.token && scrape.listen === null) {
    registerMetrics(app, deps.metrics, scrape.token);
  }

  app.addHook('onClose', async () => {
    await usage.flush();
  });
  return { app, usage, routes };
}
