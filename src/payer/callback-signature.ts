import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The compliance provider's callback signature: header `x-compliance-signature:
 * t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the shared secret>`. The
 * timestamp is signed too, so an old callback cannot be replayed past the tolerance.
 */

export const SIGNATURE_HEADER = 'x-compliance-signature';
/** How old (or how far ahead) a signed callback may be. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

export function signCallback(secret: string, unixSeconds: number, rawBody: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** True when `header` signs `rawBody` under `secret` at a time within the tolerance of `now`. */
export function verifyCallback(
  secret: string,
  header: string | undefined,
  rawBody: string,
  now: Date,
): boolean {
  if (header === undefined) return false;
  const parts = new Map(
    header.split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const t = parts.get('t');
  const sent = parts.get('v1');
  if (
    t === undefined ||
    sent === undefined ||
    !/^\d{1,12}$/.test(t) ||
    !/^[0-9a-f]{64}$/.test(sent)
  ) {
    return false;
  }
  if (Math.abs(now.getTime() / 1000 - Number(t)) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return timingSafeEqual(Buffer.from(sent, 'hex'), expected);
}
