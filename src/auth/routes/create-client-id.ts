import { type Static, Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import {
  Binding,
  type ClientIdSurface,
  createdAnswer,
  createdBody,
  Domains,
  Label,
  NullableDomains,
  Settings,
  strict,
} from '../client-id-schemas.ts';
import { accountClientId, createClientId, type NewClientId } from '../client-ids.ts';

const BODIES = {
  v2: Type.Object(
    { label: Label, allowedDomains: Domains, ...Settings },
    { ...strict, description: 'Every setting may be omitted or null (unset)' },
  ),
  v1: Type.Object(
    { label: Label, allowedDomains: Type.Optional(NullableDomains), ...Settings, ...Binding },
    strict,
  ),
};

/** Either surface's body; typed so each must fit the core's input. */
type CreateInput = Omit<NewClientId, 'accountId' | 'createdAt' | 'allowedDomains'> & {
  readonly allowedDomains?: readonly string[] | null;
};
const createInput = (body: Static<typeof BODIES.v1> | Static<typeof BODIES.v2>): CreateInput =>
  body;

export function registerCreateClientId(
  app: App,
  deps: { db: Database; clock: Clock; surface: ClientIdSurface },
): void {
  const { surface } = deps;
  app.post(
    surface.prefix,
    {
      config: { auth: surface.auth },
      schema: {
        tags: surface.tags,
        summary: 'Create a client ID',
        body: BODIES[surface.version],
        response: { 201: createdBody(surface) },
      },
    },
    async (request, reply) => {
      const accountId = accountIdOf(request);
      const { allowedDomains, ...input } = createInput(request.body);
      const row = await createClientId(
        deps.db,
        { ...input, accountId, allowedDomains: allowedDomains ?? [], createdAt: deps.clock.now() },
        { minDomains: surface.minDomains },
      );
      const record = await accountClientId(deps.db, accountId, row.id);
      return reply.code(201).send(createdAnswer(surface, record));
    },
  );
}
