import type { IncomingMessage } from 'node:http';
import { ulid } from '../base/ulid.ts';

/** A caller may name its request (`x-request-id`) if the name is short and plain; else we mint one. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

export const REQUEST_ID_HEADER = 'x-request-id';

export function requestId(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : ulid();
}
