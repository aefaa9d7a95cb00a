import type { ServerResponse } from 'node:http';
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, type FieldError, VALIDATION_FAILED } from '../errors.ts';
import { errorEnvelope } from './envelope.ts';

/** What a caller sees for any failure we did not anticipate; the details go to the log only. */
export const INTERNAL_ERROR_MESSAGE = 'Internal server error';

/** Our codes for Fastify's own client errors; others keep Fastify's code, lower-cased. */
const FASTIFY_CODES: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'empty_body',
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
};

interface SchemaIssue {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: Record<string, unknown>;
  readonly message?: string | undefined;
}

/**
 * Maps every error to the envelope: domain errors by class, schema failures to 400
 * `Validation failed` with one entry per field, Fastify's own 4xx (bad JSON, wrong media
 * type, body too large) as they are, and anything else to a generic 500.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    if (error instanceof AppError) {
      reply.headers(error.headers);
      return reply.code(error.statusCode).send({
        ...error.details,
        ...errorEnvelope(error.statusCode, error.message, {
          code: error.code,
          ...(error.errors !== undefined && { errors: error.errors }),
        }),
      });
    }
    const fastifyError = error as FastifyError;
    if (Array.isArray(fastifyError.validation)) {
      const errors = fastifyError.validation.map((issue) =>
        fieldError(issue as SchemaIssue, fastifyError.validationContext),
      );
      return reply
        .code(400)
        .send(errorEnvelope(400, VALIDATION_FAILED, { code: 'validation_failed', errors }));
    }
    const status = fastifyError.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return reply.code(status).send(
        errorEnvelope(status, fastifyError.message, {
          code:
            FASTIFY_CODES[fastifyError.code] ?? (fastifyError.code ?? 'bad_request').toLowerCase(),
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

/** `/requests/0/amount` → `requests[0].amount`; headers keep their lower-case name. */
function fieldError(issue: SchemaIssue, context: string | undefined): FieldError {
  const segments = issue.instancePath.split('/').filter((s) => s !== '');
  const extra = issue.params.missingProperty ?? issue.params.additionalProperty;
  if (typeof extra === 'string') segments.push(extra);
  const field = segments.reduce(
    (path, segment) =>
      /^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment,
    '',
  );
  let message = issue.message ?? 'is invalid';
  if (issue.keyword === 'additionalProperties') message = 'is not allowed';
  if (issue.keyword === 'required') message = 'is required';
  return { field: field || (context ?? 'body'), message };
}

/** For the router's own refusals, which arrive before Fastify's reply exists. */
export function sendRawEnvelope(
  response: ServerResponse,
  statusCode: number,
  message: string,
  code: string,
): void {
  response.statusCode = statusCode;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.end(JSON.stringify(errorEnvelope(statusCode, message, { code })));
}
