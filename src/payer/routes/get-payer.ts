import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import type { PayerDeps } from '../deps.ts';
import { isCompliant } from '../events.ts';
import { ClientUserIdParams, PAYER_AUTH, PAYER_TAGS, PayerStatus } from '../schemas.ts';
import { livePayer } from '../store.ts';

/** `GET /v1|v2/payer/{clientUserId}`: where the payer's KYC and agreement stand. */
export function registerGetPayer(app: App, deps: PayerDeps, prefix: string): void {
  app.get(
    `${prefix}/:clientUserId`,
    {
      config: { auth: PAYER_AUTH },
      schema: {
        tags: PAYER_TAGS,
        summary: 'A payer’s compliance status',
        params: ClientUserIdParams,
        response: { 200: PayerStatus },
      },
    },
    async (request) => {
      const row = await livePayer(deps.db, accountIdOf(request), request.params.clientUserId);
      return {
        kycStatus: row.kycStatus,
        agreementStatus: row.agreementStatus,
        isCompliant: isCompliant(row.kycStatus, row.agreementStatus),
        userId: row.id,
      };
    },
  );
}
