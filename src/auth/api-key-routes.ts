import { Type } from 'typebox';
import type { Clock } from '../base/clock.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { accountIdOf } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import { issueApiKey, listApiKeys, revokeAccountApiKey } from './api-keys.ts';
import { LABEL_MAX_LENGTH } from './client-id-rules.ts';
import { nullableDate } from './schemas.ts';

const AUTH = ['session'] as const;
const TAGS = ['V1/API Keys'];
export const API_KEY_NOT_FOUND = 'API key not found';

/**
 * API keys on the auth API, for the dashboard's signed-in user. The key is shown once, in the
 * creation answer; afterwards only its lookup prefix is, since we keep nothing else in clear.
 */
export function apiKeyRoutes(app: App, deps: { db: Database; clock: Clock }): void {
  app.post(
    '/v1/api-keys',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Create an API key; the key is returned once',
        body: Type.Object(
          {
            label: Type.Optional(
              Type.String({ description: `1 to ${LABEL_MAX_LENGTH} characters` }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            id: Type.String({ format: 'uuid' }),
            apiKey: Type.String({ description: 'Shown once: store it now' }),
            prefix: Type.String(),
            label: Type.Union([Type.String(), Type.Null()]),
            createdAt: Type.String({ format: 'date-time' }),
          }),
        },
      },
    },
    async (request, reply) => {
      const label = request.body.label?.trim();
      if (label !== undefined && (label.length === 0 || label.length > LABEL_MAX_LENGTH)) {
        throw new ValidationError([
          { field: 'label', message: `must be 1 to ${LABEL_MAX_LENGTH} characters` },
        ]);
      }
      const key = await issueApiKey(deps.db, accountIdOf(request), label ?? null, deps.clock.now());
      return reply.code(201).send({
        id: key.id,
        apiKey: key.apiKey,
        prefix: key.prefix,
        label: key.label,
        createdAt: key.createdAt.toISOString(),
      });
    },
  );

  app.get(
    '/v1/api-keys',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'The account’s API keys, revoked ones included (never the keys themselves)',
        response: {
          200: Type.Array(
            Type.Object({
              id: Type.String({ format: 'uuid' }),
              prefix: Type.String(),
              label: Type.Union([Type.String(), Type.Null()]),
              createdAt: Type.String({ format: 'date-time' }),
              lastUsedAt: nullableDate(),
              revokedAt: nullableDate(),
            }),
          ),
        },
      },
    },
    async (request) =>
      (await listApiKeys(deps.db, accountIdOf(request))).map((key) => ({
        id: key.id,
        prefix: key.prefix,
        label: key.label,
        createdAt: key.createdAt.toISOString(),
        lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
        revokedAt: key.revokedAt?.toISOString() ?? null,
      })),
  );

  app.delete(
    '/v1/api-keys/:id',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Revoke an API key for good (revoking again answers the first revocation)',
        params: Type.Object({ id: Type.String({ description: 'The key’s `id` (uuid)' }) }),
        response: {
          200: Type.Object({
            id: Type.String({ format: 'uuid' }),
            revokedAt: Type.String({ format: 'date-time' }),
          }),
        },
      },
    },
    async (request) => {
      const revoked = await revokeAccountApiKey(
        deps.db,
        deps.clock,
        accountIdOf(request),
        request.params.id,
      );
      if (revoked === null) throw new AppError('api_key_not_found', API_KEY_NOT_FOUND);
      return { id: revoked.id, revokedAt: revoked.revokedAt.toISOString() };
    },
  );
}
