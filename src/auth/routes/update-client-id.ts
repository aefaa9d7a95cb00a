import { type Static, Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import {
  Binding,
  type ClientIdSurface,
  detailAnswer,
  detailBody,
  domainsText,
  IdParams,
  Label,
  NullableDomains,
  Settings,
  Status,
  strict,
} from '../client-id-schemas.ts';
import { type ClientIdChange, updateClientId } from '../client-ids.ts';

const BODIES = {
  v2: Type.Object(
    {
      label: Type.Optional(Label),
      allowedDomains: Type.Optional(Type.Array(Type.String(), { description: domainsText })),
      status: Type.Optional(Status),
      ...Settings,
    },
    strict,
  ),
  v1: Type.Object(
    {
      label: Type.Optional(Label),
      allowedDomains: Type.Optional(NullableDomains),
      status: Type.Optional(Status),
      ...Settings,
      ...Binding,
    },
    strict,
  ),
};

/** Either surface's body; typed so each must fit the core's change. */
const changeOf = (body: Static<typeof BODIES.v1> | Static<typeof BODIES.v2>): ClientIdChange =>
  body;

export function registerUpdateClientId(
  app: App,
  deps: { db: Database; clock: Clock; surface: ClientIdSurface },
): void {
  const { surface } = deps;
  app.put(
    `${surface.prefix}/:id`,
    {
      config: { auth: surface.auth },
      schema: {
        tags: surface.tags,
        summary: 'Change a client ID: absent fields stay, null unsets',
        description:
          'A revoked client ID cannot be changed or reactivated (400 client_id_revoked); status revoked alone answers it unchanged. Operator-wallet and fee changes apply to payments created afterwards.',
        params: IdParams,
        body: BODIES[surface.version],
        response: { 200: detailBody(surface) },
      },
    },
    async (request) => {
      const scope = { accountId: accountIdOf(request), id: request.params.id };
      const policy = { minDomains: surface.minDomains };
      const record = await updateClientId(
        deps.db,
        deps.clock,
        scope,
        changeOf(request.body),
        policy,
      );
      return detailAnswer(surface, record);
    },
  );
}
