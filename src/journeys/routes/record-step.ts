import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { parseDateTime } from '../../base/dates.ts';
import { ValidationError } from '../../base/errors.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { appendStep, type JourneyDeps, journeyOfQuery } from '../journeys.ts';
import { JOURNEY_AUTH, JOURNEY_TAGS, StepAnswer } from '../schemas.ts';
import { stepBody } from '../view.ts';

/** The largest `rawPayload`, as JSON text. */
const MAX_RAW_PAYLOAD_BYTES = 16_384;
/** Its deepest nesting (objects and arrays). */
const MAX_RAW_PAYLOAD_DEPTH = 16;

const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description && { description }) });

const StepBody = Type.Object({
  status: Text(64, 'The processor’s own word for where the money is (received, converted, sent…)'),
  amount: Type.String({
    maxLength: 100,
    pattern: '^[0-9]{1,78}(\\.[0-9]{1,36})?$',
    description: 'A decimal string in currency',
  }),
  processedAt: Type.String({ format: 'date-time', description: 'ISO 8601 with a zone' }),
  currency: Type.Optional(Text(64)),
  txReference: Type.Optional(
    Text(256, 'The processor’s reference: a transaction hash, a transfer id'),
  ),
  rawPayload: Type.Optional(
    Type.Unknown({
      description: `Any JSON, up to ${MAX_RAW_PAYLOAD_BYTES} bytes and ${MAX_RAW_PAYLOAD_DEPTH} levels deep`,
    }),
  ),
  nextProcessorId: Type.Optional(Text(128, 'Who the money goes to next')),
});

const QueryParams = Type.Object({
  queryId: Type.String({
    minLength: 1,
    maxLength: 128,
    description:
      'The journey (journeyId), or one of the caller’s requests by its requestId or payment reference: then its newest journey',
  }),
});

/** The id of the API key that calls: the processor a step is recorded for. */
function processorOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal?.kind !== 'apiKey') throw new Error('journey steps are posted with an API key');
  return principal.apiKeyId;
}

function depthOf(value: unknown, limit: number): number {
  if (value === null || typeof value !== 'object') return 0;
  if (limit === 0) return 1;
  const items = Array.isArray(value) ? value : Object.values(value);
  return (
    1 + items.reduce<number>((deepest, item) => Math.max(deepest, depthOf(item, limit - 1)), 0)
  );
}

const PROCESSED_AT_MESSAGE =
  'must be an ISO 8601 date-time with a time zone, such as 2026-11-22T12:05:00Z';

/** The instant `processedAt` names; the schema's format lets through some that do not exist. */
function processedAtOf(text: string): Date {
  const date = parseDateTime(text);
  if (date === null) {
    throw new ValidationError([{ field: 'processedAt', message: PROCESSED_AT_MESSAGE }]);
  }
  return date;
}

/** Bounds the schema cannot state: the payload's size and depth. */
function checkRawPayload(rawPayload: unknown): void {
  if (rawPayload === undefined) return;
  if (Buffer.byteLength(JSON.stringify(rawPayload)) > MAX_RAW_PAYLOAD_BYTES) {
    throw new ValidationError([
      { field: 'rawPayload', message: `must be at most ${MAX_RAW_PAYLOAD_BYTES} bytes as JSON` },
    ]);
  }
  if (depthOf(rawPayload, MAX_RAW_PAYLOAD_DEPTH) > MAX_RAW_PAYLOAD_DEPTH) {
    throw new ValidationError([
      { field: 'rawPayload', message: `must be at most ${MAX_RAW_PAYLOAD_DEPTH} levels deep` },
    ]);
  }
}

/** `POST /v2/journey/{queryId}` (Request API 0.31.0): a processor's step of a journey. */
export function registerRecordStep(app: App, deps: JourneyDeps): void {
  app.post(
    '/v2/journey/:queryId',
    {
      config: { auth: JOURNEY_AUTH },
      schema: {
        tags: JOURNEY_TAGS,
        summary: 'Record a processor’s step of a journey',
        description:
          'Appends a step, as the calling API key (processorId), to the journey queryId names. Nothing is written on a 4xx.',
        params: QueryParams,
        body: StepBody,
        response: {
          201: StepAnswer,
          409: { description: 'The journey holds as many steps as it may', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request, reply) => {
      const processedAt = processedAtOf(request.body.processedAt);
      checkRawPayload(request.body.rawPayload);
      const journey = await journeyOfQuery(deps.db, accountIdOf(request), request.params.queryId);
      const step = await appendStep(deps, journey, processorOf(request), {
        ...request.body,
        processedAt,
      });
      return reply.code(201).send(stepBody(step));
    },
  );
}
