import type { FastifyRequest } from 'fastify';
import type { FeePlan } from '../base/fee-plan.ts';
import type { ClientIdRow } from '../db/schema.ts';
import { accountIdOf, browserOriginOf, clientIdOf } from '../http/principal.ts';
import type { RequestedAccess } from '../screening/link-policy.ts';

/** Who creates a link and what they ask for, as every way of creating one takes it. */

export interface CreateLinkInput {
  readonly requests: readonly {
    readonly destinationId?: string | undefined;
    readonly amount: string;
    /**
     * The destination's token, or (ours) a fiat code: the amount is then in that fiat, paid in
     * the destination's token.
     */
    readonly invoiceCurrency?: string | undefined;
    /** As the integration guide sends them: what the destination already says. */
    readonly payee?: string | undefined;
    readonly paymentCurrency?: string | undefined;
  }[];
  readonly reference?: string | undefined;
  readonly payerIdentifier?: string | undefined;
  readonly redirectUrl?: string | undefined;
  readonly redirectLabel?: string | undefined;
  /** Its `accessPolicy`, checked (src/screening/link-policy.ts); undefined: the destination's. */
  readonly accessPolicy?: RequestedAccess | undefined;
}

export interface CreatedLink {
  readonly token: string;
  readonly securePaymentUrl: string;
  readonly requestIds: string[];
  /** The fee plan the link captured; absent where links have none yet (payouts). */
  readonly feePlan?: FeePlan | null;
}

export interface LinkCaller {
  readonly accountId: string;
  readonly clientId: ClientIdRow | null;
  /** An orchestrator acting for the client ID (`x-orchestrator-key` + `x-client-id`). */
  readonly orchestrated: boolean;
  /** That orchestrator; null for any other caller. */
  readonly orchestratorId: string | null;
  /** The browser origin the client ID called from, if it is a browser's. */
  readonly origin: string | null;
}

/** The caller as the request's principal names it. */
export function linkCallerOf(request: FastifyRequest): LinkCaller {
  return {
    accountId: accountIdOf(request),
    clientId: clientIdOf(request),
    orchestrated: request.principal?.kind === 'orchestratorPair',
    orchestratorId:
      request.principal?.kind === 'orchestratorPair' ? request.principal.orchestratorId : null,
    origin: browserOriginOf(request),
  };
}

/** What a new link's requests record of who created them. */
export function requestOwnerOf(caller: LinkCaller) {
  return {
    accountId: caller.accountId,
    clientIdId: caller.clientId?.id ?? null,
    origin: caller.origin,
  };
}
