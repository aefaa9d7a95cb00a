import { Type } from 'typebox';
import type { CredentialKind } from '../http/principal.ts';
import {
  canonicalFeePercentage,
  MAX_ALLOWED_DOMAINS,
  RATE_LIMIT_TIERS,
} from './client-id-rules.ts';
import type { ClientIdRecord } from './client-ids.ts';
import { LABEL_MAX_LENGTH } from './labels.ts';
import { nullableDate } from './schemas.ts';

/**
 * Client-ID management on both APIs. `/v2/client-ids` (API key) manages browser client IDs:
 * allowed domains are required there, and there is no destination binding. `/v1/client-ids`
 * (the dashboard's session) adds `payeeDestinationId` and allows backend client IDs (no
 * domains, no Origin check). Either way a caller sees and changes only its account's client
 * IDs; `:id` is the row id, not the `cli_` value, which is a credential. Each route serves
 * both surfaces; what differs between them is here.
 */

export interface ClientIdSurface {
  readonly version: 'v1' | 'v2';
  readonly prefix: '/v1/client-ids' | '/v2/client-ids';
  readonly auth: readonly CredentialKind[];
  readonly tags: string[];
  /** Whether this surface shows and sets `payeeDestinationId`. */
  readonly binding: boolean;
  readonly minDomains: number;
}

export const V2_CLIENT_IDS: ClientIdSurface = {
  version: 'v2',
  prefix: '/v2/client-ids',
  auth: ['apiKey'],
  tags: ['V2/Client IDs'],
  binding: false,
  minDomains: 1,
};

export const V1_CLIENT_IDS: ClientIdSurface = {
  version: 'v1',
  prefix: '/v1/client-ids',
  auth: ['session'],
  tags: ['V1/Client IDs'],
  binding: true,
  minDomains: 0,
};

// Ajv reports `type: [T, 'null']` as one message per field, where a union gives three.
const nullableString = (description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], description });
const nullableInteger = (options: { description: string; minimum?: number; maximum?: number }) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], ...options });

/** The widest integer the SQL columns hold (68 years of seconds). */
const MAX_EXPIRY_SECONDS = 2_147_483_647;

/** The optional settings a create or change body may carry. */
export const Settings = {
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
export const Label = Type.String({ description: `1 to ${LABEL_MAX_LENGTH} characters` });
export const domainsText = `Browser origins (https; http only for localhost, 127.0.0.1, [::1]), at most ${MAX_ALLOWED_DOMAINS}`;
export const Domains = Type.Array(Type.String(), { description: domainsText });
export const NullableDomains = Type.Unsafe<string[] | null>({
  type: ['array', 'null'],
  items: { type: 'string' },
  description: `${domainsText}; empty or null for a backend client ID (no Origin check)`,
});
export const Status = Type.Enum(['active', 'inactive', 'revoked'] as const);
export const Binding = {
  payeeDestinationId: Type.Optional(
    nullableString('Destination id of an active payee destination of the account; null unbinds'),
  ),
};
export const strict = { additionalProperties: false } as const;
export const IdParams = Type.Object({
  id: Type.String({ description: 'The client ID’s `id` (uuid)' }),
});

export const ListItem = {
  id: Type.String({ format: 'uuid' }),
  clientId: Type.String(),
  label: Type.String(),
  allowedDomains: Type.Array(Type.String()),
  status: Status,
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: nullableDate(),
};
export const Created = {
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

/** The binding field of answers, on the surface that has one. */
export function boundTo(surface: ClientIdSurface) {
  return surface.binding ? BoundTo : {};
}

export function createdBody(surface: ClientIdSurface) {
  return Type.Object({ ...Created, ...boundTo(surface) });
}

export function detailBody(surface: ClientIdSurface) {
  return Type.Object({ ...Detail, ...boundTo(surface) });
}

export function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

/** A client ID's fee percentage as answers show it ("1.5", not the column's "1.50"). */
export function feePercentageOf(row: ClientIdRecord['row']): string | null {
  return row.feePercentage === null
    ? null
    : (canonicalFeePercentage(row.feePercentage) ?? row.feePercentage);
}

/** The answer to a create. */
export function createdAnswer(
  surface: ClientIdSurface,
  { row, payeeDestinationId }: ClientIdRecord,
) {
  return {
    id: row.id,
    clientId: row.clientId,
    label: row.label,
    allowedDomains: row.allowedDomains,
    feePercentage: feePercentageOf(row),
    feeAddress: row.feeAddress,
    operatorWalletAddress: row.operatorWalletAddress,
    defaultPreApprovalExpiry: row.defaultPreApprovalExpiry,
    defaultAuthorizationExpiry: row.defaultAuthorizationExpiry,
    rateLimitPerMinute: row.rateLimitPerMinute,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    ...(surface.binding && { payeeDestinationId }),
  };
}

/** The answer to a read, a change or a revocation: the create's, and when it last changed and was used. */
export function detailAnswer(surface: ClientIdSurface, record: ClientIdRecord) {
  return {
    ...createdAnswer(surface, record),
    updatedAt: record.row.updatedAt.toISOString(),
    lastUsedAt: iso(record.row.lastUsedAt),
  };
}
