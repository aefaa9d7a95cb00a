import { Type } from 'typebox';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { AUTH, TAGS } from '../schemas.ts';
import { type SignedDeps, signingData } from '../signed.ts';

const SigningDataQuery = Type.Object(
  {
    walletAddress: Type.String({ minLength: 1 }),
    action: Type.Union([Type.Literal('add'), Type.Literal('deactivate')]),
    tokenAddress: Type.String({ minLength: 1 }),
    chainId: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);

const SigningData = Type.Object({
  nonce: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
  typedData: Type.Object({
    domain: Type.Object({
      name: Type.String(),
      version: Type.String(),
      chainId: Type.Integer(),
    }),
    types: Type.Record(
      Type.String(),
      Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
    ),
    primaryType: Type.String(),
    message: Type.Record(Type.String(), Type.Unknown()),
  }),
});

export function registerGetSigningData(app: App, deps: SignedDeps): void {
  app.get(
    '/v2/payee-destination/signing-data',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'EIP-712 typed data (with a single-use nonce) to add or deactivate a destination',
        querystring: SigningDataQuery,
        response: { 200: SigningData },
      },
    },
    async (request) => signingData(deps, accountIdOf(request), request.query),
  );
}
