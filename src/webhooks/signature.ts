import { createHmac } from 'node:crypto';

/**
 * How deliveries are signed and labelled. Every delivery carries two header families with the
 * same values: the reference API's `x-request-network-*`, which receivers written for the real
 * service read, and the spec's `x-service-*`. v1 signature (both families): hex HMAC-SHA256 of
 * the raw body. v2 (ours, beside it): HMAC over `<timestamp>.<raw body>`, so a receiver can
 * refuse a replayed delivery by its age.
 */

export const SIGNATURE_HEADER = 'x-service-signature';
export const SIGNATURE_V2_HEADER = 'x-service-signature-v2';
export const TIMESTAMP_HEADER = 'x-service-timestamp';
export const DELIVERY_HEADER = 'x-service-delivery';
const RETRY_COUNT_HEADER = 'x-service-retry-count';
const TEST_HEADER = 'x-service-test';

/** The reference API's names for the same values. */
export const REFERENCE_HEADERS = {
  signature: 'x-request-network-signature',
  delivery: 'x-request-network-delivery',
  retryCount: 'x-request-network-retry-count',
  test: 'x-request-network-test',
} as const;

export function signV1(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/** `timestamp` is Unix seconds, as sent in the timestamp header. */
export function signV2(body: string, secret: string, timestamp: number): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** Every signing and labelling header of one attempt, in both families. */
export function deliveryHeaders(input: {
  readonly body: string;
  readonly secret: string;
  readonly deliveryId: string;
  /** 0 on the first attempt. */
  readonly retryCount: number;
  readonly test: boolean;
  /** Unix seconds. */
  readonly timestamp: number;
}): Record<string, string> {
  const v1 = signV1(input.body, input.secret);
  const retryCount = String(input.retryCount);
  return {
    [REFERENCE_HEADERS.signature]: v1,
    [REFERENCE_HEADERS.delivery]: input.deliveryId,
    [REFERENCE_HEADERS.retryCount]: retryCount,
    ...(input.test && { [REFERENCE_HEADERS.test]: 'true' }),
    [SIGNATURE_HEADER]: v1,
    [SIGNATURE_V2_HEADER]: signV2(input.body, input.secret, input.timestamp),
    [TIMESTAMP_HEADER]: String(input.timestamp),
    [DELIVERY_HEADER]: input.deliveryId,
    [RETRY_COUNT_HEADER]: retryCount,
    ...(input.test && { [TEST_HEADER]: 'true' }),
  };
}
