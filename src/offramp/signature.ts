import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The off-ramp provider's callback signature: `x-offramp-signature: t=<unix seconds>,v1=<hex>`,
 * the HMAC-SHA256 of `<t>.<raw body>` under the shared webhook secret. A signature older (or
 * newer) than five minutes is refused, so a captured callback cannot be replayed later.
 */

export const SIGNATURE_HEADER = 'x-offramp-signature';
const TOLERANCE_SECONDS = 300;

export function signCallback(
  secret: string,
  rawBody: string | Buffer,
  unixSeconds: number,
): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.`).update(rawBody).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

export function verifyCallback(
  secret: string,
  rawBody: Buffer,
  header: string | undefined,
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
  const v1 = parts.get('v1');
  if (t === undefined || v1 === undefined || !/^\d{1,12}$/.test(t) || !/^[0-9a-f]{64}$/.test(v1))
    return false;
  if (Math.abs(nowSeconds - Number(t)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}
