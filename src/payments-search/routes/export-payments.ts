import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { scopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { exportPaymentsCsv, PAYMENT_EXPORT_COLUMNS } from '../export.ts';
import { PAYMENT_FILTERS } from './search-payments.ts';

const Query = Type.Object(PAYMENT_FILTERS, { additionalProperties: false });

/** `deps` is read on each request, not captured at registration. */
export function registerExportPayments(
  app: App,
  deps: { db: Database; chains: ChainRegistry },
): void {
  app.get(
    '/v2/dashboard/payments/export',
    {
      config: { auth: ['apiKey', 'session'] },
      schema: {
        tags: ['V2/Dashboard'],
        summary: 'Ours: every payment a GET /v2/payments search finds, as CSV, newest first',
        description: `The filters of GET /v2/payments (at least one; no paging: every match). A CSV file (RFC 4180, UTF-8, CRLF) with a header row: ${PAYMENT_EXPORT_COLUMNS.join(', ')}. Amounts human-readable: amount in the request's invoice currency, paidAmount in the token paid, feeAmount the platform fee in it. A field that a spreadsheet would read as a formula (starting with =, +, -, @, a tab or a carriage return) is prefixed with '.`,
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
      const rows = exportPaymentsCsv(deps.db, deps.chains, scopeOf(request), request.query);
      // The first chunk (the header) is asked for here: a bad filter throws now, as a 400.
      const header = await rows.next();
      const csv = Readable.from(
        (async function* () {
          if (header.done !== true) yield header.value;
          yield* rows;
        })(),
      );
      return (
        reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="payments.csv"')
          .header('cache-control', 'no-store')
          // As the requests export: Fastify sends the stream as it comes.
          .send(csv as unknown as string)
      );
    },
  );
}
