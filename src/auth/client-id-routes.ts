import { type Static, type TSchema, Type } from 'typebox';
import type { Clock } from '../base/clock.ts';
import type { Database } from '../db/client.ts';
import { accountIdOf, type CredentialKind } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import {
  canonicalFeePercentage,
  LABEL_MAX_LENGTH,
  MAX_ALLOWED_DOMAINS,
  RATE_LIMIT_TIERS,
} from './client-id-rules.ts';
import {
  accountClientId,
  type ClientIdChange,
  type ClientIdRecord,
  createClientId,
  listClientIds,
  type NewClientId,
  revokeClientId,
  updateClientId,
} from './client-ids.ts';

/**
 * Client-ID management on both APIs. `/v2/client-ids` (API key) manages browser client IDs:
 * allowed domains are required there, and there is no destination binding. `/v1/client-ids`
 * (the dashboard's session) adds `payeeDestinationId` and allows backend client IDs (no
 * domains, no Origin check). Either way a caller sees and changes only its account's client
 * IDs; `:id` is the row id, not the `cli_` value, which is a credential.
 */

// Ajv reports `type: [T, 'null']` as one message per field, where a union gives three.
const nullableString = (description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], description });
const nullableInteger = (options: { description: string; minimum?: number; maximum?: number }) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], ...options });
/** A timestamp that may not exist yet (never used, never revoked). */
export const nullableDate = () =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' });

/** The widest integer the SQL columns hold (68 years of seconds). */
const MAX_EXPIRY_SECONDS = 2_147_483_647;

const Settings = {
  feePercentage: Type.Optional(
    nullableString(
      'Percent, 0 to 100 with at most 2 decimals, e.g. "1.5". Needs feeAddress. Any value but "0" is the platform fee of GET /v2/request/{id}/pay called with this client ID, replacing the feePercentage and feeAddress of the call; "0" lets the call’s own apply.',
    ),
  ),
  feeAddress: Type.Optional(nullableString('EVM or Tron address that receives the fee')),
  operatorWalletAddress: Type.Optional(
    nullableString('EVM wallet the API operator acts for in commerce payments'),
  ),
  defaultPreApprovalExpiry: Type.Optional(
    nullableInteger({ description: 'Seconds', minimum: 1, maximum: MAX_EXPIRY_SECONDS }),
  ),
  defaultAuthorizationExpiry: Type.Optional(
    nullableInteger({ description: 'Seconds', minimum: 1, maximum: MAX_EXPIRY_SECONDS }),
  ),
  rateLimitPerMinute: Type.Optional(
    nullableInteger({
      description: `Requests per minute per IP: ${RATE_LIMIT_TIERS.join(', ')}; null for the default tier (300)`,
    }),
  ),
};
const Label = Type.String({ description: `1 to ${LABEL_MAX_LENGTH} characters` });
const domainsText = `Browser origins (https; http only for localhost, 127.0.0.1, [::1]), at most ${MAX_ALLOWED_DOMAINS}`;
const Domains = Type.Array(Type.String(), { description: domainsText });
const NullableDomains = Type.Unsafe<string[] | null>({
  type: ['array', 'null'],
  items: { type: 'string' },
  description: `${domainsText}; empty or null for a backend client ID (no Origin check)`,
});
const Status = Type.Enum(['active', 'inactive', 'revoked'] as const);
const Binding = {
  payeeDestinationId: Type.Optional(
    nullableString('Destination id of an active payee destination of the account; null unbinds'),
  ),
};
const strict = { additionalProperties: false } as const;

const ListItem = {
  id: Type.String({ format: 'uuid' }),
  clientId: Type.String(),
  label: Type.String(),
  allowedDomains: Type.Array(Type.String()),
  status: Status,
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: nullableDate(),
};
const Created = {
  id: ListItem.id,
  clientId: ListItem.clientId,
  label: ListItem.label,
  allowedDomains: ListItem.allowedDomains,
  feePercentage: nullableString('Percent'),
  feeAddress: nullableString('Fee recipient'),
  operatorWalletAddress: nullableString('Commerce-payments operator'),
  defaultPreApprovalExpiry: nullableInteger({ description: 'Seconds' }),
  defaultAuthorizationExpiry: nullableInteger({ description: 'Seconds' }),
  rateLimitPerMinute: nullableInteger({ description: 'Requests per minute; null: default tier' }),
  status: Status,
  createdAt: ListItem.createdAt,
};
const Detail = {
  ...Created,
  updatedAt: Type.String({ format: 'date-time' }),
  lastUsedAt: nullableDate(),
};
const BoundTo = { payeeDestinationId: nullableString('Bound destination id') };

interface SurfaceSpec<Create extends TSchema, Update extends TSchema> {
  readonly prefix: '/v1/client-ids' | '/v2/client-ids';
  readonly auth: readonly CredentialKind[];
  readonly tags: string[];
  /** Whether this surface shows and sets `payeeDestinationId`. */
  readonly binding: boolean;
  readonly minDomains: number;
  readonly create: Create;
  readonly update: Update;
  /** Identity at runtime; checks at compile time that the surface's bodies fit the core's input. */
  readonly createInput: (body: Static<Create>) => CreateInput;
  readonly updateInput: (body: Static<Update>) => ClientIdChange;
}

type CreateInput = Omit<NewClientId, 'accountId' | 'createdAt' | 'allowedDomains'> & {
  readonly allowedDomains?: readonly string[] | null;
};

function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

export function clientIdRoutes(app: App, deps: { db: Database; clock: Clock }): void {
  const v2Create = Type.Object(
    { label: Label, allowedDomains: Domains, ...Settings },
    { ...strict, description: 'Every setting may be omitted or null (unset)' },
  );
  const v2Update = Type.Object(
    {
      label: Type.Optional(Label),
      allowedDomains: Type.Optional(Type.Array(Type.String(), { description: domainsText })),
      status: Type.Optional(Status),
      ...Settings,
    },
    strict,
  );
  surface(app, deps, {
    prefix: '/v2/client-ids',
    auth: ['apiKey'],
    tags: ['V2/Client IDs'],
    binding: false,
    minDomains: 1,
    create: v2Create,
    update: v2Update,
    createInput: (body) => body,
    updateInput: (body) => body,
  });
  surface(app, deps, {
    prefix: '/v1/client-ids',
    auth: ['session'],
    tags: ['V1/Client IDs'],
    binding: true,
    minDomains: 0,
    create: Type.Object(
      { label: Label, allowedDomains: Type.Optional(NullableDomains), ...Settings, ...Binding },
      strict,
    ),
    update: Type.Object(
      {
        label: Type.Optional(Label),
        allowedDomains: Type.Optional(NullableDomains),
        status: Type.Optional(Status),
        ...Settings,
        ...Binding,
      },
      strict,
    ),
    createInput: (body) => body,
    updateInput: (body) => body,
  });
}

function surface<Create extends TSchema, Update extends TSchema>(
  app: App,
  deps: { db: Database; clock: Clock },
  spec: SurfaceSpec<Create, Update>,
): void {
  const bound = spec.binding ? BoundTo : {};
  const CreatedBody = Type.Object({ ...Created, ...bound });
  const DetailBody = Type.Object({ ...Detail, ...bound });
  const IdParams = Type.Object({ id: Type.String({ description: 'The client ID’s `id` (uuid)' }) });
  const config = { auth: spec.auth };
  const policy = { minDomains: spec.minDomains };

  const created = ({ row, payeeDestinationId }: ClientIdRecord) => ({
    id: row.id,
    clientId: row.clientId,
    label: row.label,
    allowedDomains: row.allowedDomains,
    feePercentage:
      row.feePercentage === null
        ? null
        : (canonicalFeePercentage(row.feePercentage) ?? row.feePercentage),
    feeAddress: row.feeAddress,
    operatorWalletAddress: row.operatorWalletAddress,
    defaultPreApprovalExpiry: row.defaultPreApprovalExpiry,
    defaultAuthorizationExpiry: row.defaultAuthorizationExpiry,
    rateLimitPerMinute: row.rateLimitPerMinute,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    ...(spec.binding && { payeeDestinationId }),
  });
  const detail = (record: ClientIdRecord) => ({
    ...created(record),
    updatedAt: record.row.updatedAt.toISOString(),
    lastUsedAt: iso(record.row.lastUsedAt),
  });

  app.post(
    spec.prefix,
    {
      config,
      schema: {
        tags: spec.tags,
        summary: 'Create a client ID',
        body: spec.create,
        response: { 201: CreatedBody },
      },
    },
    async (request, reply) => {
      const accountId = accountIdOf(request);
      // The provider's body type is Static<Create> behind a wrapper that only maps undefined.
      const { allowedDomains, ...input } = spec.createInput(request.body as Static<Create>);
      const row = await createClientId(
        deps.db,
        { ...input, accountId, allowedDomains: allowedDomains ?? [], createdAt: deps.clock.now() },
        policy,
      );
      return reply.code(201).send(created(await accountClientId(deps.db, accountId, row.id)));
    },
  );

  app.get(
    spec.prefix,
    {
      config,
      schema: {
        tags: spec.tags,
        summary: 'The account’s client IDs, revoked ones included',
        response: { 200: Type.Array(Type.Object({ ...ListItem, ...bound })) },
      },
    },
    async (request) =>
      (await listClientIds(deps.db, accountIdOf(request))).map(({ row, payeeDestinationId }) => ({
        id: row.id,
        clientId: row.clientId,
        label: row.label,
        allowedDomains: row.allowedDomains,
        status: row.status,
        createdAt: row.createdAt.toISOString(),
        lastUsedAt: iso(row.lastUsedAt),
        ...(spec.binding && { payeeDestinationId }),
      })),
  );

  app.get(
    `${spec.prefix}/:id`,
    {
      config,
      schema: {
        tags: spec.tags,
        summary: 'One client ID',
        params: IdParams,
        response: { 200: DetailBody },
      },
    },
    async (request) =>
      detail(await accountClientId(deps.db, accountIdOf(request), request.params.id)),
  );

  app.put(
    `${spec.prefix}/:id`,
    {
      config,
      schema: {
        tags: spec.tags,
        summary: 'Change a client ID: absent fields stay, null unsets',
        description:
          'A revoked client ID cannot be changed or reactivated (400 client_id_revoked); status revoked alone answers it unchanged. Operator-wallet and fee changes apply to payments created afterwards.',
        params: IdParams,
        body: spec.update,
        response: { 200: DetailBody },
      },
    },
    async (request) => {
      const scope = { accountId: accountIdOf(request), id: request.params.id };
      const change = spec.updateInput(request.body as Static<Update>);
      return detail(await updateClientId(deps.db, deps.clock, scope, change, policy));
    },
  );

  app.delete(
    `${spec.prefix}/:id`,
    {
      config,
      schema: {
        tags: spec.tags,
        summary: 'Revoke a client ID for good',
        params: IdParams,
        response: { 200: DetailBody },
      },
    },
    async (request) => {
      const scope = { accountId: accountIdOf(request), id: request.params.id };
      return detail(await revokeClientId(deps.db, deps.clock, scope));
    },
  );
}
