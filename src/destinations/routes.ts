import { Type } from 'typebox';
import type { Hex } from 'viem';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import { canonicalAddress } from '../chains/address.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { accountIdOf } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import { parseDestinationId } from './destination-id.ts';
import {
  activateDestination,
  activeDestinationOf,
  type DestinationRow,
  deactivateDestination,
  findDestination,
} from './destinations.ts';
import { consumeSignedNonce, issueNonce } from './nonces.ts';
import { destinationTypedDataJson } from './signing.ts';
import { parseTarget, resolveTarget } from './target.ts';

const AUTH = ['clientId', 'apiKey'] as const;
const TAGS = ['V2/Payee Destination'];

const DestinationSchema = Type.Object(
  {
    id: Type.String(),
    destinationId: Type.String(),
    walletAddress: Type.String(),
    tokenAddress: Type.String(),
    chainId: Type.Integer(),
    network: Type.String(),
    active: Type.Boolean(),
    binaryInteropAddress: Type.String(),
    humanReadableInteropAddress: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'PayeeDestination', additionalProperties: false },
);

const SignedBody = Type.Object(
  {
    signature: Type.String({ pattern: '^0x[0-9a-fA-F]{130}$' }),
    nonce: Type.String({ minLength: 1, maxLength: 100 }),
  },
  { additionalProperties: false },
);

export function destinationBody(row: DestinationRow) {
  const parsed = parseDestinationId(row.destinationId);
  return {
    id: row.id,
    destinationId: row.destinationId,
    walletAddress: row.walletAddress,
    tokenAddress: row.tokenAddress,
    chainId: row.chainId,
    network: row.network,
    active: row.active,
    binaryInteropAddress: parsed?.binaryInteropAddress ?? '',
    humanReadableInteropAddress: parsed?.humanReadableInteropAddress ?? '',
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Payee destinations on the request API: a wallet proves it wants to be paid somewhere by
 * signing EIP-712 typed data carrying a single-use nonce.
 */
export function destinationRoutes(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry },
): void {
  app.addSchema(DestinationSchema);
  const DestinationRef = Type.Ref('PayeeDestination');

  app.get(
    '/v2/payee-destination/signing-data',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'EIP-712 typed data (with a single-use nonce) to add or deactivate a destination',
        querystring: Type.Object(
          {
            walletAddress: Type.String({ minLength: 1 }),
            action: Type.Union([Type.Literal('add'), Type.Literal('deactivate')]),
            tokenAddress: Type.String({ minLength: 1 }),
            chainId: Type.Integer({ minimum: 1 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
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
          }),
        },
      },
    },
    async (request) => {
      const target = resolveTarget(deps.chains, request.query);
      const message = await issueNonce(
        deps.db,
        deps.clock,
        accountIdOf(request),
        request.query.action,
        target,
      );
      return {
        nonce: message.nonce,
        expiresAt: new Date(message.expiresAt * 1000).toISOString(),
        typedData: destinationTypedDataJson(message),
      };
    },
  );

  app.post(
    '/v2/payee-destination',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Add (or reactivate) a destination with the wallet’s signature',
        body: SignedBody,
        response: { 201: DestinationRef },
      },
    },
    async (request, reply) => {
      const accountId = accountIdOf(request);
      const message = await consumeSignedNonce(deps.db, deps.clock, accountId, {
        nonce: request.body.nonce,
        signature: request.body.signature as Hex,
        expectedAction: 'add',
      });
      const target = resolveTarget(deps.chains, message);
      const row = await activateDestination(deps.db, deps.clock, accountId, target);
      return reply.code(201).send(destinationBody(row));
    },
  );

  app.get(
    '/v2/payee-destination',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'The active destination of a wallet, or null',
        querystring: Type.Object(
          { walletAddress: Type.String({ minLength: 1 }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Union([DestinationRef, Type.Null()]) },
      },
    },
    async (request) => {
      const row = await activeDestinationOf(
        deps.db,
        accountIdOf(request),
        normaliseWalletQuery(request.query.walletAddress),
      );
      return row ? destinationBody(row) : null;
    },
  );

  app.get(
    '/v2/payee-destination/:destinationId',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'One destination (URL-encode the id: it contains # and :)',
        params: Type.Object({ destinationId: Type.String({ minLength: 1 }) }),
        response: { 200: DestinationRef },
      },
    },
    async (request) => {
      parseTarget(deps.chains, request.params.destinationId);
      const row = await findDestination(
        deps.db,
        accountIdOf(request),
        request.params.destinationId,
      );
      if (!row) throw new AppError('destination_not_found', 'Payee destination not found');
      return destinationBody(row);
    },
  );

  app.delete(
    '/v2/payee-destination/:destinationId',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Deactivate a destination with the wallet’s signature (the record is kept)',
        params: Type.Object({ destinationId: Type.String({ minLength: 1 }) }),
        body: SignedBody,
        response: { 200: DestinationRef },
      },
    },
    async (request) => {
      const accountId = accountIdOf(request);
      const target = parseTarget(deps.chains, request.params.destinationId);
      const row = await findDestination(deps.db, accountId, request.params.destinationId);
      if (!row) throw new AppError('unknown_destination', 'Payee destination not found');
      const message = await consumeSignedNonce(deps.db, deps.clock, accountId, {
        nonce: request.body.nonce,
        signature: request.body.signature as Hex,
        expectedAction: 'deactivate',
      });
      if (
        message.walletAddress !== target.id.walletAddress ||
        message.tokenAddress !== target.id.tokenAddress ||
        message.chainId !== target.id.chainId
      ) {
        throw new AppError('signature_mismatch', 'The signed message names another destination');
      }
      return destinationBody(await deactivateDestination(deps.db, deps.clock, row));
    },
  );
}

/** EVM wallets are stored checksummed; a query that is no address finds nothing. */
function normaliseWalletQuery(wallet: string): string {
  return canonicalAddress(wallet, { allowZero: true }) ?? wallet;
}
