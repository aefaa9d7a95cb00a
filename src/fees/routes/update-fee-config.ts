import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import {
  ORCHESTRATOR_AUTH,
  ORCHESTRATOR_TAGS,
  orchestratorIdOf,
} from '../../orchestrators/schemas.ts';
import { feeConfigAnswer, updateFeeConfig } from '../fee-configs.ts';
import {
  AddressSchema,
  BpsSchema,
  FeeConfigParams,
  FeeConfigSchema,
  StatusSchema,
  UsdCapSchema,
} from '../schemas.ts';

const IDENTITY = 'Part of the config’s identity: refused (400) unless it equals the current value';

/**
 * The identity fields are named so that they reach the handler and are refused by name: unknown
 * body fields are otherwise dropped, and a change that silently did nothing would mislead.
 */
const Body = Type.Object({
  bps: Type.Optional(BpsSchema),
  usdCap: Type.Optional(Type.Union([UsdCapSchema, Type.Null()], { description: 'null: no cap' })),
  evmRecipientAddress: Type.Optional(Type.Union([AddressSchema, Type.Null()])),
  tronRecipientAddress: Type.Optional(Type.Union([AddressSchema, Type.Null()])),
  status: Type.Optional(StatusSchema),
  flow: Type.Optional(Type.Unknown({ description: IDENTITY })),
  feeBearer: Type.Optional(Type.Unknown({ description: IDENTITY })),
  feeType: Type.Optional(Type.Unknown({ description: IDENTITY })),
  clientId: Type.Optional(Type.Unknown({ description: IDENTITY })),
});

export function registerUpdateFeeConfig(app: App, deps: { db: Database; clock: Clock }): void {
  app.patch(
    '/v2/orchestrators/fee-configs/:id',
    {
      config: { auth: ORCHESTRATOR_AUTH },
      schema: {
        tags: ORCHESTRATOR_TAGS,
        summary: 'Change a fee config’s bps, usdCap, recipients or status',
        description:
          'Its identity (feeType, flow, feeBearer, its client ID) never changes. At least one recipient must remain.',
        params: FeeConfigParams,
        body: Body,
        response: {
          200: FeeConfigSchema,
          404: { description: 'No such fee config of this orchestrator', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request) => {
      const { flow, feeBearer, feeType, clientId, ...changes } = request.body;
      const updated = await updateFeeConfig(
        deps.db,
        deps.clock,
        orchestratorIdOf(request),
        request.params.id,
        { ...changes, identity: { flow, feeBearer, feeType, clientId } },
      );
      return feeConfigAnswer(updated);
    },
  );
}
