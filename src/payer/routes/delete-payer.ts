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
      // The provider is asked to delete its customer too; if it cannot, the erasure here goes on
      // and the operator is told which customer is left there (its id, nothing personal).
      if (row.providerUserId !== null && deps.provider !== null) {
        await deps.provider.deleteCustomer(row.providerUserId).catch((error: unknown) => {
          request.log.warn(
            {
              payerId: row.id,
              providerCustomerId: row.providerUserId,
              reason: error instanceof Error ? error.message : 'provider error',
            },
            'compliance provider customer not deleted: delete it there by hand',
          );
        });
      }
      const now = deps.clock.now();
      const erased = { personal: null, keyId: null, erasedAt: now, updatedAt: now };
      await deps.db.transaction(async (tx) => {
        await tx
          .update(payers)
          .set({ ...erased, providerUserId: null, kycUrl: null, agreementUrl: null })
          .where(eq(payers.id, row.id));
        await tx
          .update(paymentDetails)
          .set({ ...erased, providerAccountId: null })
          .where(eq(paymentDetails.payerId, row.id));
      });
      return { success: true };
    },
  );
}
