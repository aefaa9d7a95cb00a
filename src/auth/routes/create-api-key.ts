import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { apiKeyLabel, issueApiKey } from '../api-keys.ts';
import { LABEL_MAX_LENGTH } from '../labels.ts';
import { API_KEY_AUTH, API_KEY_TAGS } from '../schemas.ts';

const Body = Type.Object(
  { label: Type.Optional(Type.String({ description: `1 to ${LABEL_MAX_LENGTH} characters` })) },
  { additionalProperties: false },
);
const Response = Type.Object({
  id: Type.String({ format: 'uuid' }),
  apiKey: Type.String({ description: 'Shown once: store it now' }),
  prefix: Type.String(),
  label: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

/** The key is shown once, here; afterwards only its lookup prefix is, as we keep nothing else in clear. */
export function registerCreateApiKey(app: App, deps: { db: Database; clock: Clock }): void {
  app.post(
    '/v1/api-keys',
    {
      config: { auth: API_KEY_AUTH },
      schema: {
        tags: API_KEY_TAGS,
        summary: 'Create an API key; the key is returned once',
        body: Body,
        response: { 201: Response },
      },
    },
    async (request, reply) => {
      const label = apiKeyLabel(request.body.label);
      const key = await issueApiKey(deps.db, accountIdOf(request), label, deps.clock.now());
      return reply.code(201).send({
        id: key.id,
        apiKey: key.apiKey,
        prefix: key.prefix,
        label: key.label,
        createdAt: key.createdAt.toISOString(),
      });
    },
  );
}
