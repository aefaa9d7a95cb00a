import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature a third party's callbacks carry (the compliance provider's, the off-ramp's):
 * `t=<unix seconds>,v1=<hex>`, the HMAC-SHA256 of `<t>.<raw body>` under the shared secret. The
 * time is signed too, and a signature more than five minutes from now is refused, so a captured
 * callback cannot be replayed later.
 */

const TOLERANCE_SECONDS = 300;

export function signTimed(secret: string, unixSeconds: number, rawBody: string | Buffer): string {
  return `t=${unixSeconds},v1=${mac(secret, String(unixSeconds), rawBody).toString('hex')}`;
}

/** True when `header` signs `rawBody` under `secret` at a time within the tolerance of now. */
export function verifyTimed(
  secret: string,
  header: string | undefined,
  rawBody: string | Buffer,
  nowSeconds: number,
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
  )
    return false;
  if (Math.abs(nowSeconds - Number(t)) > TOLERANCE_SECONDS) return false;
  return timingSafeEqual(mac(secret, t, rawBody), Buffer.from(sent, 'hex'));
}

function mac(secret: string, t: string, rawBody: string | Buffer): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
}
