import { Type } from 'typebox';
import { AppError } from '../../base/errors.ts';
import type { DatabaseHandle } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import type { RelayerHealth } from '../../payouts/recurring/relayer-health.ts';

const Decimal = Type.Union([Type.String(), Type.Null()]);

/** `/readyz`: `status` as ever, plus what this process's recurring executors last found. */
const Readiness = Type.Object(
  {
    status: Type.Literal('ready'),
    recurringRelayers: Type.Optional(
      Type.Array(
        Type.Object(
          {
            network: Type.String(),
            address: Type.String(),
            status: Type.Union([
              Type.Literal('ok'),
              Type.Literal('low_balance'),
              Type.Literal('unknown'),
            ]),
            balance: Decimal,
            minimumBalance: Decimal,
            checkedAt: Type.String({ format: 'date-time' }),
          },
          { additionalProperties: false },
        ),
        {
          description:
            'Present when this process triggers recurring payouts: per network, the relayer’s native balance and what one trigger may cost. `low_balance` means payouts wait until it is funded; the process stays ready for everything else.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export interface ReadinessDeps {
  readonly database: DatabaseHandle;
  readonly relayerHealth?: (() => readonly RelayerHealth[]) | undefined;
}

/**
 * `/readyz`: the database answers; the relayers' check is a detail, never a condition. Also
 * served, the same, as the reference's health checks (`/v2/health`, the Auth API's `/v1/health`).
 */
export function registerReadiness(app: App, deps: ReadinessDeps, path = '/readyz'): void {
  app.get(
    path,
    {
      schema: {
        tags: ['Health'],
        summary: 'Readiness: the database answers',
        response: { 200: Readiness },
      },
    },
    async (request) => {
      try {
        await deps.database.ping();
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        throw new AppError('database_unavailable', 'Database unreachable');
      }
      const relayers = deps.relayerHealth?.() ?? [];
      return {
        status: 'ready' as const,
        ...(relayers.length > 0 && { recurringRelayers: [...relayers] }),
      };
    },
  );
}
