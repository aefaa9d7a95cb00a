import { Type } from 'typebox';
import type { DatabaseHandle } from '../db/client.ts';
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';

const Status = (value: string) =>
  Type.Object({ status: Type.Literal(value) }, { additionalProperties: false });

/** Liveness says the process answers; readiness says it can reach its database. */
export function healthRoutes(app: App, deps: { database: DatabaseHandle }): void {
  app.get(
    '/healthz',
    {
      config: { admission: false },
      schema: { tags: ['Health'], summary: 'Liveness', response: { 200: Status('ok') } },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Health'],
        summary: 'Readiness: the database answers',
        response: { 200: Status('ready') },
      },
    },
    async (request) => {
      try {
        await deps.database.ping();
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        throw new AppError('database_unavailable', 'Database unreachable');
      }
      return { status: 'ready' as const };
    },
  );
}
