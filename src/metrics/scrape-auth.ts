import { createHash, timingSafeEqual } from 'node:crypto';
import type { SecretText } from '../config/crosschain.ts';
import { type ErrorEnvelope, errorEnvelope } from '../http/envelope.ts';

/** The scheme `METRICS_TOKEN` is sent with, as Prometheus's `authorization` block sends it. */
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Whether a scrape may read the metrics: with no token configured (a listener of its own,
 * guarded by its address), always; otherwise only with `Authorization: Bearer <METRICS_TOKEN>`.
 * Answers the refusal to send, or null. The token is compared in constant time over digests of
 * equal length, so neither its text nor its length leaks through timing.
 */
export function scrapeRefusal(
  token: SecretText | null,
  authorization: string | undefined,
): ErrorEnvelope | null {
  if (token === null) return null;
  const sent = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  if (sent === undefined) {
    return errorEnvelope(401, 'Missing credentials: send authorization: Bearer <METRICS_TOKEN>', {
      code: 'missing_credentials',
    });
  }
  const same = timingSafeEqual(digest(sent), digest(token.reveal()));
  return same
    ? null
    : errorEnvelope(403, 'The bearer token is not the metrics token', {
        code: 'credential_not_accepted',
      });
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
