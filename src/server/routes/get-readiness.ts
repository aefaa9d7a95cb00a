import { Type } from 'typebox';
import { AppError } from '../../base/errors.ts';
import type { NetworkReadiness } from '../../chains/network-probe.ts';
import type { DatabaseHandle } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import type { RelayerHealth } from '../../payouts/recurring/relayer-health.ts';

const Decimal = Type.Union([Type.String(), Type.Null()]);

const NetworkStatus = Type.Object(
  {
    network: Type.String(),
    status: Type.Union([
      Type.Literal('checking'),
      Type.Literal('ok'),
      Type.Literal('unreachable'),
      Type.Literal('wrong_chain'),
    ]),
    reason: Type.Union([Type.String(), Type.Null()]),
    checkedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false },
);

/** `/readyz`: `status` as ever, plus what this process's recurring executors last found. */
const Readiness = Type.Object(
  {
    status: Type.Literal('ready'),
    networks: Type.Optional(
      Type.Array(NetworkStatus, {
        description:
          'Each network this process has an RPC for (`RPC_URL_<NETWORK>`, the sandbox chain) and whether it answered as itself since the start. Until every one has, `/readyz` answers 503 `networks_not_ready` with the same list.',
      }),
    ),
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
  /** The start check of the networks this process has an RPC for (main.ts runs it). */
  readonly networks?: (() => readonly NetworkReadiness[]) | undefined;
  /** True once the process was told to stop: it drains, so it must get no new traffic. */
  readonly stopping?: (() => boolean) | undefined;
}

/**
 * `/readyz`: the process is not stopping, the database answers, and every network with an RPC
 * answered as itself since the start; the relayers' check is a detail, never a condition. Also served, the same, as the
 * reference's health checks (`/v2/health`, the Auth API's `/v1/health`).
 */
export function registerReadiness(app: App, deps: ReadinessDeps, path = '/readyz'): void {
  app.get(
    path,
    {
      schema: {
        tags: ['Health'],
        summary: 'Readiness: the database and the configured networks answer',
        response: { 200: Readiness },
      },
    },
    async (request) => {
      // First: a process on its way out is not ready whatever else still answers.
      if (deps.stopping?.()) {
        throw new AppError('shutting_down', 'Not ready: shutting down', {
          details: { status: 'not_ready' },
        });
      }
      try {
        await deps.database.ping();
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        throw new AppError('database_unavailable', 'Database unreachable');
      }
      const networks = deps.networks?.() ?? [];
      const waiting = networks.filter((network) => network.status !== 'ok');
      if (waiting.length > 0) {
        throw new AppError(
          'networks_not_ready',
          `Not ready: ${waiting.map((network) => `network ${network.network}: ${network.reason ?? network.status}`).join('; ')}`,
          { details: { status: 'not_ready', networks: [...networks] } },
        );
      }
      const relayers = deps.relayerHealth?.() ?? [];
      return {
        status: 'ready' as const,
        ...(networks.length > 0 && { networks: [...networks] }),
        ...(relayers.length > 0 && { recurringRelayers: [...relayers] }),
      };
    },
  );
}
