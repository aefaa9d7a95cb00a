import type { FastifyRequest } from 'fastify';
import { accountIdOf, browserOriginOf, clientIdOf } from '../http/principal.ts';
import type { RequestCaller } from '../requests/create.ts';

/** Who asks for a payout, as the request's principal names it. */
export function payoutCallerOf(request: FastifyRequest): RequestCaller {
  return {
    accountId: accountIdOf(request),
    clientId: clientIdOf(request),
    origin: browserOriginOf(request),
  };
}
