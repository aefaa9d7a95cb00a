import { Type } from 'typebox';
import { ValidationError } from '../base/errors.ts';
import type { WebhookRow } from './ownership.ts';

/**
 * An endpoint's retry policy past the reference's three retries (1 s, 5 s, 15 s after each
 * failure, which always happen): the first delay of the doubling back-off, its cap, and how long
 * after the event retries go on. Set at registration (`POST /v1/webhook`) or later
 * (`PATCH /v1/webhook/{id}`); a field left null takes the deployment's `WEBHOOK_RETRY_*`.
 */

/** The back-off never starts below the reference's last delay, nor waits past a day. */
const MIN_DELAY_SECONDS = 15;
const MAX_DELAY_SECONDS = 86_400;
/** Thirty days at most, as `WEBHOOK_RETRY_FOR_MS`; 0 stops after the reference's three retries. */
const MAX_RETRY_FOR_SECONDS = 30 * 86_400;

const nullableSeconds = (minimum: number, maximum: number, description: string) =>
  Type.Optional(
    Type.Union([Type.Integer({ minimum, maximum }), Type.Null()], {
      description: `${description}; null: the deployment's default`,
    }),
  );

export const RetryPolicyBody = Type.Object(
  {
    backoffSeconds: nullableSeconds(
      MIN_DELAY_SECONDS,
      MAX_DELAY_SECONDS,
      'Delay before the 5th attempt (after the reference’s 1 s, 5 s, 15 s), doubling after each failure',
    ),
    maxDelaySeconds: nullableSeconds(
      MIN_DELAY_SECONDS,
      MAX_DELAY_SECONDS,
      'Longest delay between two attempts (at least backoffSeconds)',
    ),
    retryForSeconds: nullableSeconds(
      0,
      MAX_RETRY_FOR_SECONDS,
      'How long after the event attempts go on; 0: only the reference’s three retries',
    ),
  },
  { additionalProperties: false },
);

export type RetryPolicyInput = {
  readonly backoffSeconds?: number | null | undefined;
  readonly maxDelaySeconds?: number | null | undefined;
  readonly retryForSeconds?: number | null | undefined;
};

/** As the endpoint's answers show it: its own settings, null where the deployment's apply. */
export const RetryPolicySchema = Type.Object({
  backoffSeconds: Type.Union([Type.Integer(), Type.Null()]),
  maxDelaySeconds: Type.Union([Type.Integer(), Type.Null()]),
  retryForSeconds: Type.Union([Type.Integer(), Type.Null()]),
});

/** The columns to write for `input` over `current`: fields left out keep their value. */
export function retryColumns(
  input: RetryPolicyInput,
  current?: Pick<WebhookRow, 'retryBackoffSeconds' | 'retryMaxDelaySeconds' | 'retryForSeconds'>,
) {
  const columns = {
    retryBackoffSeconds:
      input.backoffSeconds === undefined
        ? (current?.retryBackoffSeconds ?? null)
        : input.backoffSeconds,
    retryMaxDelaySeconds:
      input.maxDelaySeconds === undefined
        ? (current?.retryMaxDelaySeconds ?? null)
        : input.maxDelaySeconds,
    retryForSeconds:
      input.retryForSeconds === undefined
        ? (current?.retryForSeconds ?? null)
        : input.retryForSeconds,
  };
  const { retryBackoffSeconds: backoff, retryMaxDelaySeconds: max } = columns;
  if (backoff !== null && max !== null && max < backoff) {
    throw new ValidationError([
      { field: 'retryPolicy.maxDelaySeconds', message: 'must be at least backoffSeconds' },
    ]);
  }
  return columns;
}

export function retryPolicyOf(row: WebhookRow) {
  return {
    backoffSeconds: row.retryBackoffSeconds,
    maxDelaySeconds: row.retryMaxDelaySeconds,
    retryForSeconds: row.retryForSeconds,
  };
}
