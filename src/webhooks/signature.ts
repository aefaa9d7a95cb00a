import { createHmac } from 'node:crypto';

/**
 * How deliveries are signed. v1 (the reference API's): hex HMAC-SHA256 of the raw body. v2
 * (ours, beside it): HMAC over `<timestamp>.<raw body>`, so a receiver can refuse a replayed
 * delivery by its age.
 */

export const SIGNATURE_HEADER = 'x-service-signature';
export const SIGNATURE_V2_HEADER = 'x-service-signature-v2';
export const TIMESTAMP_HEADER = 'x-service-timestamp';
export const DELIVERY_HEADER = 'x-service-delivery';
export const RETRY_COUNT_HEADER = 'x-service-retry-count';
export const TEST_HEADER = 'x-service-test';

export function signV1(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/** `timestamp` is Unix seconds, as sent in the timestamp header. */
export function signV2(body: string, secret: string, timestamp: number): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}
