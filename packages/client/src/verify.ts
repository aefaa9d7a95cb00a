import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * For receivers: checks a payreq delivery. Pass the raw body exactly as received (never a
 * re-serialised object), the request headers and your endpoint's signing secret.
 *
 * ```ts
 * import { verifyWebhook } from '@payreq/client/webhooks'; // or 'payreq/webhooks' in this repository
 * const check = verifyWebhook({ rawBody, headers: req.headers, secret });
 * if (!check.ok) return res.status(401).end();
 * ```
 */

/** Deliveries older than this are refused as replays when the v2 signature is checked. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface VerifyInput {
  readonly rawBody: string | Buffer;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly secret: string;
  /** Seconds a v2 delivery may be old; default 300. */
  readonly toleranceSeconds?: number;
  /** Unix seconds now (tests). */
  readonly now?: number;
}

export type VerifyResult =
  | { readonly ok: true; readonly deliveryId: string | null; readonly version: 'v1' | 'v2' }
  | {
      readonly ok: false;
      readonly reason: 'missing_signature' | 'bad_signature' | 'stale_timestamp';
    };

/** `name` is lower case; Node lower-cases incoming names, other frameworks keep the sender's. */
function header(headers: VerifyInput['headers'], name: string): string | undefined {
  const value =
    headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function same(expectedHex: string, receivedHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  const received = Buffer.from(receivedHex, 'hex');
  return received.length === expected.length && timingSafeEqual(expected, received);
}

/** Prefers the v2 signature (timestamped) when present, else checks v1 (either header family). */
export function verifyWebhook(input: VerifyInput): VerifyResult {
  const body =
    typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : input.rawBody;
  // Deliveries carry the reference API's header family too (x-request-network-*), same values.
  const deliveryId =
    header(input.headers, 'x-service-delivery') ??
    header(input.headers, 'x-request-network-delivery') ??
    null;
  const v2 = header(input.headers, 'x-service-signature-v2');
  const timestamp = header(input.headers, 'x-service-timestamp');
  if (v2 !== undefined && timestamp !== undefined) {
    const now = input.now ?? Math.floor(Date.now() / 1000);
    const age = Math.abs(now - Number(timestamp));
    if (!Number.isFinite(age) || age > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
      return { ok: false, reason: 'stale_timestamp' };
    }
    const expected = createHmac('sha256', input.secret)
      .update(`${timestamp}.`)
      .update(body)
      .digest('hex');
    return same(expected, v2)
      ? { ok: true, deliveryId, version: 'v2' }
      : { ok: false, reason: 'bad_signature' };
  }
  const v1 =
    header(input.headers, 'x-service-signature') ??
    header(input.headers, 'x-request-network-signature');
  if (v1 === undefined) return { ok: false, reason: 'missing_signature' };
  const expected = createHmac('sha256', input.secret).update(body).digest('hex');
  return same(expected, v1)
    ? { ok: true, deliveryId, version: 'v1' }
    : { ok: false, reason: 'bad_signature' };
}
