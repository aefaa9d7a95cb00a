import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance } from 'fastify';
import {
  AppError,
  ERROR_STATUS,
  type ErrorCode,
  type FieldError,
  VALIDATION_FAILED,
} from '../base/errors.ts';
import { ulid } from '../base/ulid.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { errorEnvelope } from '../http/envelope.ts';
import { type SchemaIssue, schemaFieldErrors } from '../http/schema-errors.ts';
import { REQUEST_ID_HEADER, requestId } from './request-id.ts';

/** What a caller sees for any failure we did not anticipate; the details go to the log only. */
const INTERNAL_ERROR_MESSAGE = 'Internal server error';

/** The message of readiness's 503 (server/routes/get-readiness.ts), for any route's. */
const DATABASE_UNAVAILABLE_MESSAGE = 'Database unreachable';

/** Our codes for Fastify's own client errors; any other is `bad_request`. */
const FASTIFY_CODES: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'empty_body',
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
};

/** The `message` of every 401, as the reference API sends it (api-facts §16). */
const UNAUTHORIZED_MESSAGE = 'Unauthorized';

/**
 * A 401 says `Unauthorized`, as the reference does, whichever credential failed: clients match
 * on it. What failed (our message) moves into `errors`, beside the `code` that names it.
 */
function unauthorized(error: AppError): { message: string; errors: readonly FieldError[] } {
  const field = REFUSED_CREDENTIAL[error.code] ?? 'credentials';
  return {
    message: UNAUTHORIZED_MESSAGE,
    errors: error.errors ?? [{ field, message: error.message }],
  };
}

/** The credential a 401 refused, where one header names it. */
const REFUSED_CREDENTIAL: Partial<Record<ErrorCode, string>> = {
  invalid_api_key: 'x-api-key',
  revoked_api_key: 'x-api-key',
  invalid_client_id: 'x-client-id',
  invalid_orchestrator_key: 'x-orchestrator-key',
  revoked_orchestrator_key: 'x-orchestrator-key',
  invalid_session: 'session',
  session_expired: 'session',
};

/**
 * Maps every error to the envelope: domain errors by class, schema failures to 400
 * `Validation failed` with one entry per field, Fastify's own 4xx (bad JSON, wrong media
 * type, body too large) as they are, and anything else to a generic 500.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    if (error instanceof AppError) {
      const status = error.statusCode;
      reply.headers(error.headers);
      const { message, errors } = status === 401 ? unauthorized(error) : error;
      return reply.code(status).send({
        ...error.details,
        ...errorEnvelope(status, message, {
          code: error.code,
          ...(errors !== undefined && { errors }),
        }),
      });
    }
    const fastifyError = error as FastifyError;
    if (Array.isArray(fastifyError.validation)) {
      const errors = schemaFieldErrors(
        fastifyError.validation as SchemaIssue[],
        fastifyError.validationContext,
      );
      return reply
        .code(400)
        .send(errorEnvelope(400, VALIDATION_FAILED, { code: 'validation_failed', errors }));
    }
    const status = fastifyError.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      const code = FASTIFY_CODES[fastifyError.code] ?? 'bad_request';
      return reply
        .code(ERROR_STATUS[code])
        .send(errorEnvelope(ERROR_STATUS[code], fastifyError.message, { code }));
    }
    // A database restarting or failing over is the service being briefly unavailable, not a
    // fault of ours or the caller's: 503 says to try again, as readiness does meanwhile.
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return reply.code(ERROR_STATUS.database_unavailable).send(
        errorEnvelope(ERROR_STATUS.database_unavailable, DATABASE_UNAVAILABLE_MESSAGE, {
          code: 'database_unavailable',
        }),
      );
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply
      .code(500)
      .send(errorEnvelope(500, INTERNAL_ERROR_MESSAGE, { code: 'internal_error' }));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    reply.code(404).send(
      errorEnvelope(404, `Route ${request.method} ${path} not found`, {
        code: 'route_not_found',
      }),
    );
  });
}

/**
 * For refusals that come before Fastify's reply exists (the router's): the same envelope, and
 * the request's id so the answer can still be quoted.
 */
export function sendRawEnvelope(
  response: ServerResponse,
  code: ErrorCode,
  message: string,
  id: string = ulid(),
): void {
  const status = ERROR_STATUS[code];
  response.statusCode = status;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.setHeader(REQUEST_ID_HEADER, id);
  response.end(JSON.stringify(errorEnvelope(status, message, { code })));
}

/**
 * The HTTP parser's own refusals (bytes a request line or header may not hold, a body framed
 * two ways, headers too large, a request too slow): answered on the socket, as Node and
 * Fastify do, but with our envelope and a request id, then the connection is closed.
 */
export function clientErrorHandler(
  this: { log: { debug(details: object, message: string): void } },
  error: NodeJS.ErrnoException,
  socket: Duplex,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message]: [ErrorCode, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['request_timeout', 'The request took too long to arrive']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? ['headers_too_large', 'Request headers are too large']
        : ['bad_request', `Malformed HTTP request (${error.code ?? 'unknown'})`];
  const id = ulid();
  this.log.debug({ requestId: id, code: error.code }, 'refused by the HTTP parser');
  const status = ERROR_STATUS[code];
  const body = JSON.stringify(errorEnvelope(status, message, { code }));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * What Node's HTTP server would otherwise answer itself, with an empty body or none: a request
 * without `Host` (refused here rather than by Node, so it gets the envelope), an `Expect` other
 * than `100-continue`, and `CONNECT` (no tunnels here).
 */
export function installHttpGuards(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const http11 = request.raw.httpVersionMajor === 1 && request.raw.httpVersionMinor >= 1;
    done(
      http11 && !request.headers.host
        ? new AppError('bad_request', 'Host header is required')
        : undefined,
    );
  });
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    sendRawEnvelope(
      response,
      'expectation_failed',
      `Expect: ${String(request.headers.expect)} is not supported`,
      requestId(request),
    );
  });
  app.server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const id = requestId(request);
    const body = JSON.stringify(
      errorEnvelope(ERROR_STATUS.method_not_allowed, 'CONNECT is not served here', {
        code: 'method_not_allowed',
      }),
    );
    socket.on('error', () => {});
    socket.end(
      `HTTP/1.1 405 ${STATUS_CODES[405]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
