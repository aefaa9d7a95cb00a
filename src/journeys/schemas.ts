import { Type } from 'typebox';

/** What the three journey routes share: credentials, tag, and the shapes of a step. */

/** Request API 0.31.0 takes only an API key on `/v2/journey`. */
export const JOURNEY_AUTH = ['apiKey'] as const;
export const JOURNEY_TAGS = ['V2/Journey'];

const NullableText = Type.Union([Type.String(), Type.Null()]);

/** A processor's step as `POST /v2/journey/{queryId}` answers it (the reference's example). */
export const StepAnswer = Type.Object({
  id: Type.String({ description: 'jst_ and a ULID' }),
  journeyId: Type.String(),
  processorId: Type.String({ description: 'The id of the API key that posted the step' }),
  status: Type.String(),
  amount: Type.String(),
  currency: NullableText,
  txReference: NullableText,
  processedAt: Type.String({ format: 'date-time' }),
  rawPayload: Type.Unknown({ description: 'As posted; null when none was' }),
  nextProcessorId: NullableText,
});

const ProcessorEvent = Type.Object({
  id: Type.String(),
  stepIndex: Type.Integer(),
  source: Type.Literal('processor'),
  processorId: Type.String(),
  status: Type.String(),
  amount: Type.String(),
  currency: NullableText,
  processedAt: Type.String({ format: 'date-time' }),
  txReference: NullableText,
  rawPayload: Type.Unknown(),
  nextProcessorId: NullableText,
});

const PayreqEvent = Type.Object({
  id: Type.String({ description: 'The kind of row and its id: payment:<id>, webhook:<id>, …' }),
  stepIndex: Type.Integer(),
  source: Type.Literal('payreq', { description: 'Ours: a hop payreq saw or made itself' }),
  type: Type.Union([
    Type.Literal('request_created'),
    Type.Literal('payment_intent'),
    Type.Literal('bridge_status'),
    Type.Literal('payment_detected'),
    Type.Literal('fee_leg_paid'),
    Type.Literal('webhook_sent'),
  ]),
  status: Type.String(),
  amount: NullableText,
  currency: NullableText,
  processedAt: Type.String({ format: 'date-time', description: 'When payreq saw or did it' }),
  txReference: NullableText,
  rawPayload: Type.Record(Type.String(), Type.Unknown()),
});

export const JourneyAnswer = Type.Object({
  id: Type.String({ description: 'jrn_ and a ULID' }),
  requestId: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  events: Type.Array(Type.Union([ProcessorEvent, PayreqEvent]), {
    description:
      'Every step in time order (stepIndex is the place in it, from 0): the processors’ steps and payreq’s own hops',
  }),
});
