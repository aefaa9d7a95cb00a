import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { EXPORT_COLUMNS, exportRequestsCsv } from '../export.ts';
import { FLOW_DESCRIPTION, REQUEST_FLOWS } from '../flows.ts';

const Query = Type.Object(
  {
    flow: Type.Enum([...REQUEST_FLOWS], { description: FLOW_DESCRIPTION }),
  },
  { additionalProperties: false },
);

/** `deps` is read on each request, not captured at registration. */
export function registerExportRequests(
  app: App,
  deps: { db: Database; chains: ChainRegistry },
): void {
  app.get(
    '/v2/dashboard/requests/export',
    {
      config: { auth: ['session'] },
      schema: {
        tags: ['V2/Dashboard'],
        summary: 'The signed-in account’s requests as CSV, newest first',
        description: `A CSV file (RFC 4180, UTF-8, CRLF) with a header row: ${EXPORT_COLUMNS.join(', ')}. Amounts in the invoice currency, human-readable. A field that a spreadsheet would read as a formula (starting with =, +, -, @, a tab or a carriage return) is prefixed with '.`,
        querystring: Query,
        response: {
          200: {
            description: 'The CSV, streamed',
            content: { 'text/csv': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (request, reply) => {
      const { flow } = request.query;
      const csv = Readable.from(exportRequestsCsv(deps, accountIdOf(request), flow));
      return (
        reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="requests-${flow}.csv"`)
          .header('cache-control', 'no-store')
          // The type provider reads the documented body (a string) as what send takes; Fastify
          // sends a stream as it comes, which is the point here.
          .send(csv as unknown as string)
      );
    },
  );
}
