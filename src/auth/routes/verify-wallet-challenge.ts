import { Type } from 'typebox';
import type { Hex } from 'viem';
import type { Clock } from '../../base/clock.ts';
import type { ChainClients } from '../../chains/clients.ts';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { AUTH_TAGS } from '../schemas.ts';
import { createSignIn } from '../session-cookie.ts';
import { SignInRefusedError, verifyChallenge } from '../siwe.ts';
import { walletUser } from '../users.ts';

const Body = Type.Object(
  {
    challengeId: Type.String({ minLength: 1, maxLength: 64 }),
    nonce: Type.String({ minLength: 1, maxLength: 64 }),
    message: Type.String({ minLength: 1, maxLength: 2_000 }),
    signature: Type.String({ pattern: '^0x[0-9a-fA-F]+$', maxLength: 20_000 }),
    /** Echoed back from the challenge by clients that send it whole; not used. */
    expiresAt: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const Response = Type.Object({
  address: Type.String(),
  walletType: Type.Union([Type.Literal('evm'), Type.Literal('tron')]),
  userId: Type.String(),
  accountId: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
  sessionToken: Type.String(),
});

export function registerVerifyWalletChallenge(
  app: App,
  deps: { db: Database; clock: Clock; config: Pick<Config, 'authUrl'>; clients: ChainClients },
): void {
  const signIn = createSignIn(deps);
  app.post(
    '/v1/auth/wallet/verify',
    {
      schema: {
        tags: AUTH_TAGS,
        summary: 'Sign in with the signed challenge (wallet sessions end after 15 idle minutes)',
        body: Body,
        response: { 200: Response },
      },
    },
    async (request, reply) => {
      const mainnet = deps.clients.configured('mainnet') ? deps.clients.evm('mainnet') : null;
      const { challengeId, nonce, message, signature } = request.body;
      const wallet = await verifyChallenge(deps.db, deps.clock, {
        authUrl: deps.config.authUrl,
        challengeId,
        nonce,
        message,
        signature: signature as Hex,
        mainnet,
      }).catch((error: unknown) => {
        // The caller gets one answer for every refusal; the log says which check it was
        // (never the signature or the message, which the challenge id leads to anyway).
        if (error instanceof SignInRefusedError) {
          request.log.info({ challengeId, reason: error.reason }, 'wallet sign-in refused');
        }
        throw error;
      });
      const user = await walletUser(deps.db, wallet);
      const session = await signIn(reply, user, 'wallet');
      return {
        address: wallet.address,
        walletType: wallet.walletType,
        userId: user.id,
        accountId: user.accountId,
        expiresAt: session.expiresAt.toISOString(),
        sessionToken: session.token,
      };
    },
  );
}
