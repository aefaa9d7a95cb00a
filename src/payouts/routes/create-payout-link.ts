import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { createLinkFor, linkInputOf } from '../../secure-payments/creation-route.ts';
import {
  CreatedLinkResponse,
  LINK_AUTH,
  LINK_OPTION_FIELDS,
  LINK_TAGS,
  REDIRECT_FIELDS,
} from '../../secure-payments/schemas.ts';
import { createPayoutLink, type PayoutLinkDeps } from '../links/create.ts';

const CreatePayoutBody = Type.Object(
  {
    recipient: Type.String({ description: 'EVM 0x… or Tron T… address of the recipient' }),
    creatorWalletAddress: Type.String({
      description: 'The wallet that pays: the page offers the payment to this wallet only',
    }),
    network: Type.String({ minLength: 1 }),
    currency: Type.String({ minLength: 1, description: 'A currency of network, e.g. USDC-base' }),
    amount: Type.String(),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    recipientIdentifier: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    ...REDIRECT_FIELDS,
    ...LINK_OPTION_FIELDS,
  },
  { additionalProperties: false },
);

export function registerCreatePayoutLink(app: App, deps: PayoutLinkDeps): void {
  app.post(
    '/v2/secure-payments/payouts',
    {
      config: { auth: LINK_AUTH },
      schema: {
        tags: LINK_TAGS,
        summary:
          'Create a hosted payout link: one recipient, paid from creatorWalletAddress only (EVM or Tron)',
        body: CreatePayoutBody,
        response: { 201: CreatedLinkResponse },
      },
    },
    async (request, reply) => {
      const input = linkInputOf(request.body);
      const created = await createLinkFor(request, (caller) =>
        createPayoutLink(deps, caller, input),
      );
      return reply.code(201).send(created);
    },
  );
}
