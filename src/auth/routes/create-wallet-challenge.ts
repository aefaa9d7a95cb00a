import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { AUTH_TAGS } from '../schemas.ts';
import { issueChallenge } from '../siwe.ts';

const Body = Type.Object(
  { address: Type.String({ minLength: 1, maxLength: 64 }) },
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
    async (request, reply) =>
      reply
        .code(201)
        .send(await issueChallenge(deps.db, deps.clock, deps.config.authUrl, request.body.address)),
  );
}
