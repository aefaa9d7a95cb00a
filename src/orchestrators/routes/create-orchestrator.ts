import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { createAccountOrchestrator } from '../account-orchestrator.ts';
import { ORCHESTRATOR_TAGS } from '../schemas.ts';

/** 0.31.0 gives no schema, only an example body: both fields, as in it. */
const Body = Type.Object(
  {
    orchestratorName: Type.String({ minLength: 1, maxLength: 100 }),
    orchestratorContactEmail: Type.Optional(
      Type.String({ minLength: 3, maxLength: 254, description: 'Shown as supportEmail' }),
    ),
  },
  { additionalProperties: false },
);

const Active = Type.Literal('active');
const Created = Type.Object(
  {
    orchestrator: Type.Object(
      {
        id: Type.String(),
        name: Type.String(),
        supportEmail: Type.Union([Type.String(), Type.Null()]),
        status: Active,
        createdAt: Type.String({ format: 'date-time' }),
        updatedAt: Type.String({ format: 'date-time' }),
      },
      { additionalProperties: false },
    ),
    key: Type.Object(
      {
        id: Type.String(),
        orchestratorId: Type.String(),
        keyPrefix: Type.String(),
        status: Active,
        createdAt: Type.String({ format: 'date-time' }),
        updatedAt: Type.String({ format: 'date-time' }),
      },
      { additionalProperties: false },
    ),
    rawKey: Type.String({ description: 'The x-orchestrator-key, shown this once' }),
  },
  { additionalProperties: false },
);

export function registerCreateOrchestrator(app: App, deps: { db: Database }): void {
  app.post(
    '/v2/orchestrators',
    {
      config: { auth: ['session'] },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'Make the signed-in account an orchestrator, and get its key once',
        description:
          'One orchestrator per account: a second call answers 409 orchestrator_exists. The key (rawKey) is not stored, only its digest.',
        body: Body,
        response: {
          201: Created,
          409: { description: 'The account has an orchestrator already', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request, reply) => {
      const created = await createAccountOrchestrator(deps.db, {
        accountId: accountIdOf(request),
        name: request.body.orchestratorName,
        supportEmail: request.body.orchestratorContactEmail ?? null,
      });
      return reply.code(201).send(created);
    },
  );
}
