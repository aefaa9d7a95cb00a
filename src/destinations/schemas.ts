import { Type } from 'typebox';

/** What the `/v2/payee-destination` routes share. */

/**
 * The reference's credentials, and ours: a session, so that the dashboard adds and removes
 * destinations as the merchant signed in (the wallet still signs each change).
 */
export const AUTH = ['clientId', 'apiKey', 'session'] as const;
export const TAGS = ['V2/Payee Destination'];

const DESTINATION_SCHEMA_ID = 'PayeeDestination';

export const DestinationSchema = Type.Object(
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
  { $id: DESTINATION_SCHEMA_ID, additionalProperties: false },
);

/** DestinationSchema by reference: destinationRoutes adds it once. */
export const DestinationRef = Type.Ref(DESTINATION_SCHEMA_ID);

/** A wallet's EIP-712 signature over the message of a nonce from /signing-data. */
export const SignedBody = Type.Object(
  {
    signature: Type.String({ pattern: '^0x[0-9a-fA-F]{130}$' }),
    nonce: Type.String({ minLength: 1, maxLength: 100 }),
  },
  { additionalProperties: false },
);

export const DestinationIdParams = Type.Object({ destinationId: Type.String({ minLength: 1 }) });
