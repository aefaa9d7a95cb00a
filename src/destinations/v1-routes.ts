import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Clock } from '../base/clock.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import { ADDRESS_MESSAGES, detectWallet } from '../chains/address.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { users } from '../db/schema.ts';
import { accountIdOf } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import { type AccessPolicy, accessPolicyFrom } from './access-policy.ts';
import { parseDestinationId } from './destination-id.ts';
import {
  activateDestination,
  activeDestinationOf,
  changeActiveDestination,
  type DestinationRow,
  deactivateDestination,
  findDestination,
  payoutDestinationOf,
} from './destinations.ts';
import { destinationBody } from './routes.ts';
import { INVALID_DESTINATION_ID, resolveWalletTarget } from './target.ts';

const AUTH = ['session'] as const;
const TAGS = ['V1/Payee Destination'];

export const WALLET_SESSION_REQUIRED = 'A wallet session is required';
export const NO_ACTIVE_DESTINATION = 'No active payee destination';
export const DESTINATION_NOT_FOUND = 'Payee destination not found';
export const DESTINATION_DEACTIVATED = 'Payee destination deactivated';

const AccessPolicyInput = Type.Object(
  {
    mode: Type.Optional(Type.Union([Type.Literal('off'), Type.Literal('kyt_all_wallets')])),
    screeningProvider: Type.Optional(
      Type.Union([Type.Literal('hypernative'), Type.Literal('merklescience'), Type.Null()]),
    ),
    hideUntilApproved: Type.Optional(Type.Boolean()),
    hidePayeeAddress: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const AccessPolicySchema = Type.Object({
  mode: Type.Union([Type.Literal('off'), Type.Literal('kyt_all_wallets')]),
  screeningProvider: Type.Union([
    Type.Literal('hypernative'),
    Type.Literal('merklescience'),
    Type.Null(),
  ]),
  hideUntilApproved: Type.Boolean(),
  hidePayeeAddress: Type.Boolean(),
});

const TargetBody = Type.Object(
  {
    tokenAddress: Type.String({ minLength: 1, maxLength: 64 }),
    chainId: Type.Integer({ minimum: 1 }),
    accessPolicy: Type.Optional(AccessPolicyInput),
  },
  { additionalProperties: false },
);

const DestinationV1 = Type.Object({
  id: Type.String(),
  destinationId: Type.String(),
  walletAddress: Type.String(),
  tokenAddress: Type.String(),
  chainId: Type.Integer(),
  accessPolicy: AccessPolicySchema,
  binaryInteropAddress: Type.String(),
  humanReadableInteropAddress: Type.String(),
  claimed: Type.Boolean(),
  active: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});

const PayoutDestination = Type.Object({
  destinationId: Type.String(),
  walletAddress: Type.String(),
  tokenAddress: Type.String(),
  chainId: Type.Integer(),
  claimed: Type.Boolean(),
});

/**
 * Every stored destination is claimed: it exists only because its wallet asked for it, by a
 * SIWE session here or an EIP-712 signature on /v2. There is no unclaimed (payer-named) kind.
 */
const CLAIMED = true;

function v1Body(row: DestinationRow) {
  const { network: _network, ...shared } = destinationBody(row);
  return { ...shared, accessPolicy: row.accessPolicy, claimed: CLAIMED };
}

/**
 * Payee destinations on the auth API: the signed-in wallet sets where it wants to be paid. The
 * SIWE sign-in already proved the wallet, so no per-change signature is asked for, unlike /v2.
 * Destinations are the same records as /v2's: one model, two ways to endorse it.
 *
 * Create, change and read-own act for the session's wallet and need a wallet session. Lookup
 * and deactivate act on the session's account, as an API key does on /v2, so any session of
 * the account may use them; payout-lookup answers for any wallet (see payoutDestinationOf).
 */
export function payeeDestinationV1Routes(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry },
): void {
  /** The signed-in user's wallet; a user who signed in by e-mail has none. */
  const sessionWallet = async (request: FastifyRequest): Promise<string> => {
    const principal = request.principal;
    if (principal?.kind !== 'session') throw new Error('route accepts only sessions');
    const [user] = await deps.db
      .select({ walletAddress: users.walletAddress })
      .from(users)
      .where(eq(users.id, principal.userId));
    if (!user?.walletAddress) {
      throw new AppError('wallet_session_required', WALLET_SESSION_REQUIRED);
    }
    return user.walletAddress;
  };

  app.post(
    '/v1/payee-destination',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Create or reactivate the session wallet’s destination (its others end)',
        body: TargetBody,
        response: { 201: DestinationV1 },
      },
    },
    async (request, reply) => {
      const wallet = await sessionWallet(request);
      const target = resolveWalletTarget(deps.chains, wallet, request.body);
      // Create takes the whole destination: an omitted policy is the default, not the old one.
      const policy = accessPolicyFrom(request.body.accessPolicy ?? {});
      const row = await activateDestination(
        deps.db,
        deps.clock,
        accountIdOf(request),
        target,
        policy,
      );
      return reply.code(201).send(v1Body(row));
    },
  );

  app.put(
    '/v1/payee-destination',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Change the session wallet’s active destination (policy kept unless sent)',
        body: TargetBody,
        response: { 200: DestinationV1 },
      },
    },
    async (request) => {
      const wallet = await sessionWallet(request);
      const target = resolveWalletTarget(deps.chains, wallet, request.body);
      const sent = request.body.accessPolicy;
      const policy: AccessPolicy | undefined = sent && accessPolicyFrom(sent);
      const row = await changeActiveDestination(
        deps.db,
        deps.clock,
        accountIdOf(request),
        target,
        policy,
      );
      if (!row) throw new AppError('no_active_destination', NO_ACTIVE_DESTINATION);
      return v1Body(row);
    },
  );

  app.get(
    '/v1/payee-destination',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'The session wallet’s active destination, or null',
        response: { 200: Type.Union([DestinationV1, Type.Null()]) },
      },
    },
    async (request) => {
      const wallet = await sessionWallet(request);
      const row = await activeDestinationOf(deps.db, accountIdOf(request), wallet);
      return row ? v1Body(row) : null;
    },
  );

  app.get(
    '/v1/payee-destination/payout-lookup',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Where a recipient wallet wants to be paid (any account’s destination), or null',
        querystring: Type.Object(
          { walletAddress: Type.String({ minLength: 1, maxLength: 64 }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Union([PayoutDestination, Type.Null()]) },
      },
    },
    async (request) => {
      const wallet = detectWallet(request.query.walletAddress);
      if (!wallet) {
        throw new ValidationError([
          {
            field: 'walletAddress',
            message: ADDRESS_MESSAGES.any,
          },
        ]);
      }
      const row = await payoutDestinationOf(deps.db, wallet.address);
      if (!row) return null;
      return {
        destinationId: row.destinationId,
        walletAddress: row.walletAddress,
        tokenAddress: row.tokenAddress,
        chainId: row.chainId,
        claimed: CLAIMED,
      };
    },
  );

  app.get(
    '/v1/payee-destination/lookup',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'One destination of the session’s account (URL-encode the id: it has # and :)',
        querystring: Type.Object(
          { destinationId: Type.String({ minLength: 1, maxLength: 256 }) },
          { additionalProperties: false },
        ),
        response: { 200: DestinationV1 },
      },
    },
    async (request) => {
      const row = await ownDestination(deps.db, request, request.query.destinationId);
      return v1Body(row);
    },
  );

  app.patch(
    '/v1/payee-destination/deactivate',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Deactivate a destination of the session’s account (the record is kept)',
        body: Type.Object(
          { destinationId: Type.String({ minLength: 1, maxLength: 256 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ success: Type.Literal(true), message: Type.String() }),
        },
      },
    },
    async (request) => {
      const row = await ownDestination(deps.db, request, request.body.destinationId);
      // Deactivating an inactive destination succeeds: the caller gets the state it asked for.
      if (row.active) await deactivateDestination(deps.db, deps.clock, row);
      return { success: true as const, message: DESTINATION_DEACTIVATED };
    },
  );
}

/**
 * A destination of the caller's account by id. Only the format is checked, not whether the
 * chain and token are still served: a destination on a network since dropped can still be
 * found and deactivated.
 */
async function ownDestination(
  db: Database,
  request: FastifyRequest,
  destinationId: string,
): Promise<DestinationRow> {
  if (parseDestinationId(destinationId) === null) {
    throw new AppError('invalid_destination_id', INVALID_DESTINATION_ID);
  }
  const row = await findDestination(db, accountIdOf(request), destinationId);
  if (!row) throw new AppError('destination_not_found', DESTINATION_NOT_FOUND);
  return row;
}
