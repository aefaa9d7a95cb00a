import { eq } from 'drizzle-orm';
import { payers, paymentDetails } from '../../db/schema/payers.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import type { PayerDeps } from '../deps.ts';
import { ClientUserIdParams, PAYER_AUTH, PAYER_TAGS, Success } from '../schemas.ts';
import { livePayer } from '../store.ts';

/**
 * `DELETE /v2/payer/{clientUserId}` (ours; the reference has no such operation): erases the
 * payer's personal data and its bank details' (the sealed documents and the provider's links)
 * and keeps what accounting needs: the ids, owner, statuses and dates. Its GETs answer 404 from
 * then on; its payments keep naming `paymentDetailsId`.
 */
export function registerDeletePayer(app: App, deps: PayerDeps, prefix: string): void {
  app.delete(
    `${prefix}/:clientUserId`,
    {
      config: { auth: PAYER_AUTH },
      schema: {
        tags: PAYER_TAGS,
        summary: 'Erase a payer’s personal data (payreq extension)',
        params: ClientUserIdParams,
        response: { 200: Success },
      },
    },
    async (request) => {
      const row = await livePayer(deps.db, accountIdOf(request), request.params.clientUserId);
      const now = deps.clock.now();
      const erased = { personal: null, keyId: null, erasedAt: now, updatedAt: now };
      await deps.db.transaction(async (tx) => {
        await tx
          .update(payers)
          .set({ ...erased, kycUrl: null, agreementUrl: null })
          .where(eq(payers.id, row.id));
        await tx.update(paymentDetails).set(erased).where(eq(paymentDetails.payerId, row.id));
      });
      return { success: true };
    },
  );
}
