import type { preValidationHookHandler } from 'fastify';
import { Type } from 'typebox';
import { type FieldError, ValidationError } from '../base/errors.ts';

/**
 * A request's `/pay` (v2, and v1 by payment reference) takes the reference's cross-chain
 * `chain` and `token`: the source chain and token a payer would pay from. Cross-chain payments
 * are not built yet (400 `crosschain_unavailable`), but the names are the reference's enums
 * (Request API 0.31.0), and a wrong one (`base`, `SOLANA`) is told apart from a right one.
 */

/** The reference's four, and ours for the sandbox's local chains (served where they run). */
const CHAINS = ['BASE', 'OPTIMISM', 'ARBITRUM', 'ETHEREUM', 'SANDBOX', 'SANDBOX_B'] as const;
const TOKENS = ['USDC', 'USDT'] as const;

/** The two parameters' schemas: one string enum each, as the reference's OpenAPI has them. */
export const CrossChainQuery = {
  chain: Type.Optional(
    Type.Unsafe<(typeof CHAINS)[number]>({
      type: 'string',
      enum: [...CHAINS],
      description: 'Cross-chain source chain: not available yet (400)',
    }),
  ),
  token: Type.Optional(
    Type.Unsafe<(typeof TOKENS)[number]>({
      type: 'string',
      enum: [...TOKENS],
      description: 'Cross-chain source token: not available yet (400)',
    }),
  ),
};

const NAMES: Readonly<Record<'chain' | 'token', readonly string[]>> = {
  chain: CHAINS,
  token: TOKENS,
};

/**
 * Refuses a `chain` or `token` outside its enum with one error naming the accepted values,
 * before the schema does: its error says only "must be equal to one of the allowed values".
 * The other parameters are checked by the schema once these are right.
 */
export const namedCrossChainValues: preValidationHookHandler = (request, _reply, done) => {
  const errors: FieldError[] = [];
  for (const field of ['chain', 'token'] as const) {
    const value = parameter(request.query, field);
    const names = NAMES[field];
    if (value !== undefined && !(typeof value === 'string' && names.includes(value))) {
      errors.push({ field, message: `must be one of ${names.join(', ')}` });
    }
  }
  done(errors.length > 0 ? new ValidationError(errors) : undefined);
};

/** A query parameter as parsed (a string, or an array when repeated), or undefined. */
function parameter(query: unknown, name: string): unknown {
  if (typeof query !== 'object' || query === null) return undefined;
  return Object.getOwnPropertyDescriptor(query, name)?.value;
}
