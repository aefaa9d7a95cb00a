import { STATUS_CODES } from 'node:http';
import { type Static, Type } from 'typebox';
import type { ErrorCode, FieldError } from '../base/errors.ts';

/** The one error body of every non-2xx response: `{statusCode, message, error}` plus extras. */
const ERROR_ENVELOPE_ID = 'ErrorEnvelope';

export const ErrorEnvelopeSchema = Type.Object(
  {
    statusCode: Type.Integer({ minimum: 400, maximum: 599 }),
    message: Type.String(),
    /** The HTTP reason phrase of `statusCode`. */
    error: Type.String(),
    /** Stable machine-readable code; see docs/errors.md. */
    code: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
    ),
  },
  { $id: ERROR_ENVELOPE_ID, additionalProperties: false },
);

export type ErrorEnvelope = Static<typeof ErrorEnvelopeSchema>;

export const ErrorEnvelopeRef = Type.Ref(ERROR_ENVELOPE_ID);

function reasonPhrase(statusCode: number): string {
  return STATUS_CODES[statusCode] ?? 'Error';
}

export function errorEnvelope(
  statusCode: number,
  message: string,
  extra: { code?: ErrorCode; errors?: readonly FieldError[] } = {},
): ErrorEnvelope {
  return {
    statusCode,
    message,
    error: reasonPhrase(statusCode),
    ...(extra.code !== undefined && { code: extra.code }),
    ...(extra.errors !== undefined && { errors: [...extra.errors] }),
  };
}
