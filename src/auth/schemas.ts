import { Type } from 'typebox';
import { PASSWORD_MAX, PASSWORD_MIN } from './passwords.ts';

/** Schemas several auth routes share. */

export const AUTH_TAGS = ['V1/Authentication'];
/** API keys are managed by the dashboard's signed-in user. */
export const API_KEY_AUTH = ['session'] as const;
export const API_KEY_TAGS = ['V1/API Keys'];

/** An e-mail and password, for registering and for logging in. */
export const Credentials = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
  },
  { additionalProperties: false },
);

export const SessionBody = Type.Object({
  userId: Type.String(),
  accountId: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
  /** The session token again, for clients that send `Authorization: Bearer` instead of the cookie. */
  sessionToken: Type.String(),
});

/** A timestamp that may not exist yet (never used, never revoked). */
export const nullableDate = () =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' });
