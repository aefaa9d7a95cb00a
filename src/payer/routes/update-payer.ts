import { eq } from 'drizzle-orm';
import { AppError } from '../../base/errors.ts';
import { payers } from '../../db/schema/payers.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { type PayerDeps, providerFailed } from '../deps.ts';
import { emitComplianceUpdated } from '../events.ts';
import { AgreementBody, ClientUserIdParams, PAYER_AUTH, PAYER_TAGS, Success } from '../schemas.ts';
import { livePayer } from '../store.ts';

const notProvided = () =>
  new AppError('validation_failed', 'agreementCompleted must be provided', {
    errors: [{ field: 'agreementCompleted', message: 'must be provided' }],
  });

/**
 * `PATCH /v1|v2/payer/{clientUserId}` `{agreementCompleted}`: the payer accepted the terms on
 * `agreementUrl` (true: the provider is told, `completed`) or declined them (false:
 * `rejected`). A change sends `compliance.updated`.
 */
export function registerUpdatePayer(app: App, deps: PayerDeps, prefix: string): void {
  app.patch(
    `${prefix}/:clientUserId`,
    {
      config: { auth: PAYER_AUTH },
      schema: {
        tags: PAYER_TAGS,
        summary: 'Record a payer’s agreement',
        params: ClientUserIdParams,
        body: AgreementBody,
        response: { 200: Success },
      },
      // No body at all is the reference's missing field too, not a malformed body.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) throw notProvided();
      },
    },
    async (request) => {
      const completed = request.body?.agreementCompleted;
      if (completed === undefined) throw notProvided();
      const row = await livePayer(deps.db, accountIdOf(request), request.params.clientUserId);
      if (completed && row.providerUserId !== null && deps.provider !== null) {
        await deps.provider.acceptTerms(row.providerUserId).catch((error: unknown) => {
          throw providerFailed(error, request.log);
        });
      }
      const agreementStatus = completed ? 'completed' : 'rejected';
      if (agreementStatus !== row.agreementStatus) {
        const now = deps.clock.now();
        await deps.db.transaction(async (tx) => {
          await tx
            .update(payers)
            .set({ agreementStatus, updatedAt: now })
            .where(eq(payers.id, row.id));
          await emitComplianceUpdated(
            tx,
            now,
            { ...row, agreementStatus },
            { source: 'agreement', agreementCompleted: completed },
          );
        });
        deps.wake?.();
      }
      return { success: true };
    },
  );
}
