import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { listApiKeys } from '../api-keys.ts';
import { API_KEY_AUTH, API_KEY_TAGS, nullableDate } from '../schemas.ts';

const Response = Type.Array(
  Type.Object({
    id: Type.String({ format: 'uuid' }),
    prefix: Type.String(),
    label: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    lastUsedAt: nullableDate(),
    revokedAt: nullableDate(),
  }),
);

export function registerListApiKeys(app: App, deps: { db: Database }): void {
  app.get(
    '/v1/api-keys',
    {
      config: { auth: API_KEY_AUTH },
      schema: {
        tags: API_KEY_TAGS,
        summary: 'The account’s API keys, revoked ones included (never the keys themselves)',
        response: { 200: Response },
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
}
