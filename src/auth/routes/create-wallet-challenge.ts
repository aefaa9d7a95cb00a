import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { AUTH_TAGS } from '../schemas.ts';
import { issueChallenge, MAX_CHAIN_ID } from '../siwe.ts';

const Body = Type.Object(
  {
    address: Type.String({ minLength: 1, maxLength: 64 }),
    chainId: Type.Optional(
      Type.Integer({
        exclusiveMinimum: 0,
        maximum: MAX_CHAIN_ID,
        description:
          'The chain the wallet is on: the EVM message’s Chain ID (1 when absent). Tron messages have no Chain ID line.',
      }),
    ),
  },
  { additionalProperties: false },
);
const Response = Type.Object({
  challengeId: Type.String(),
  nonce: Type.String(),
  message: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
});

export function registerCreateWalletChallenge(
  app: App,
  deps: { db: Database; clock: Clock; config: Pick<Config, 'authUrl'> },
): void {
  app.post(
    '/v1/auth/wallet/challenge',
    {
      schema: {
        tags: AUTH_TAGS,
        summary: 'A Sign-In with Ethereum message for an EVM or Tron address (5-minute expiry)',
        body: Body,
        response: { 201: Response },
      },
    },
    async (request, reply) => {
      const { address, chainId } = request.body;
      const challenge = await issueChallenge(
        deps.db,
        deps.clock,
        deps.config.authUrl,
        address,
        chainId,
      );
      return reply.code(201).send(challenge);
    },
  );
}
