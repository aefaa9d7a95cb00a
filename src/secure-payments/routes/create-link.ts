import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { ProtocolFeeConfig } from '../../config/protocol-fee.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { claimInWrite } from '../../idempotency/hooks.ts';
import type { ClaimRow } from '../../idempotency/records.ts';
import { checkAccessPolicy } from '../../screening/link-policy.ts';
import { createSecurePayment } from '../create.ts';
import { createLinkFor, linkInputOf } from '../creation-route.ts';
import { heldLink } from '../link-keys.ts';
import {
  CreatedLinkResponse,
  LINK_AUTH,
  LINK_OPTION_FIELDS,
  LINK_TAGS,
  LinkAccessPolicy,
  MAX_LINK_REQUESTS,
  REDIRECT_FIELDS,
} from '../schemas.ts';

const CreateSecurePaymentBody = Type.Object(
  {
    requests: Type.Array(
      Type.Object(
        {
          destinationId: Type.Optional(
            Type.String({
              minLength: 1,
              description:
                'One of the account’s active destinations. Without it (and without a bound client ID), the item’s payee and token (paymentCurrency, or a token invoiceCurrency) choose the account’s one active destination for them: 400 no_matching_destination when none does, ambiguous_destination (listing them) when several do',
            }),
          ),
          amount: Type.String({
            description:
              'In the destination’s token; in invoiceCurrency when the request names one',
          }),
          invoiceCurrency: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 64,
              description:
                'The destination’s token (its currency id, as the integration guide sends it: the same as leaving it out), or, ours, a fiat code (USD, EUR, GBP, CNY, JPY). In a fiat the request is written in that fiat (amount in its decimals: cents, yen) and paid in the destination’s token at the on-chain Chainlink rate when paid; 400 conversion_route_unavailable when the destination’s network has no feed path from that fiat to its token.',
            }),
          ),
          payee: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 128,
              description:
                'As the integration guide sends it: the destination’s wallet (an EVM one in any case or with its checksum, a Tron one as written); another wallet answers 400. Without destinationId, it chooses the destination',
            }),
          ),
          paymentCurrency: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 64,
              description:
                'As the integration guide sends it: the destination’s token (its currency id, or another id of the same contract: USDT0-matic for USDT-matic); another answers 400. Without destinationId, it chooses the destination',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_LINK_REQUESTS },
    ),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    payerIdentifier: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    ...REDIRECT_FIELDS,
    ...LINK_OPTION_FIELDS,
    accessPolicy: Type.Optional(LinkAccessPolicy),
  },
  { additionalProperties: false },
);

export function registerCreateLink(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    payUrl: string;
    protocolFee: ProtocolFeeConfig | null;
  },
): void {
  // A retry of a link made under its key is answered from the link (link-keys.ts).
  const held = (claim: ClaimRow) => heldLink(deps.db, deps.payUrl, claim);
  app.post(
    '/v2/secure-payments',
    {
      config: { auth: LINK_AUTH, idempotencyClaim: 'inWrite' },
      schema: {
        tags: LINK_TAGS,
        summary: 'Create a secure payment link (one request, or several on one EVM network)',
        body: CreateSecurePaymentBody,
        response: { 201: CreatedLinkResponse },
      },
    },
    (request, reply) =>
      claimInWrite(deps.db, request, reply, { status: 201, held }, async (claim) => {
        const { accessPolicy, ...body } = request.body;
        const input = { ...linkInputOf(body), accessPolicy: checkAccessPolicy(accessPolicy) };
        return createLinkFor(request, (caller) => createSecurePayment(deps, caller, input, claim));
      }),
  );
}
