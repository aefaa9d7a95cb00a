import { Type } from 'typebox';
import type { App } from '../../http/types.ts';

/** `/healthz`: the process answers. */
export function registerLiveness(app: App): void {
  app.get(
    '/healthz',
    {
      config: { admission: false },
      schema: {
        tags: ['Health'],
        summary: 'Liveness',
        response: {
          200: Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false }),
        },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
}
