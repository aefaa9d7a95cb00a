import { AppError } from '../../base/errors.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import type { PayerDeps } from '../deps.ts';
import { openPaymentDetail } from '../personal.ts';
import {
  ClientUserIdParams,
  PAYER_AUTH,
  PAYER_TAGS,
  PaymentDetailsList,
  PaymentDetailsQuery,
} from '../schemas.ts';
import { livePayerForDetails, livePaymentDetails } from '../store.ts';

/**
 * `GET /v1|v2/payer/{clientUserId}/payment-details[?paymentDetailsId=]`: the payer's bank
 * accounts in the reference's shape. Document numbers are never returned.
 */
export function registerListPaymentDetails(app: App, deps: PayerDeps, prefix: string): void {
  app.get(
    `${prefix}/:clientUserId/payment-details`,
    {
      config: { auth: PAYER_AUTH },
      schema: {
        tags: PAYER_TAGS,
        summary: 'A payer’s bank accounts',
        params: ClientUserIdParams,
        querystring: PaymentDetailsQuery,
        response: { 200: PaymentDetailsList },
      },
    },
    async (request) => {
      const { clientUserId } = request.params;
      const wanted = request.query.paymentDetailsId;
      const payer = await livePayerForDetails(deps.db, accountIdOf(request), clientUserId);
      const rows = (await livePaymentDetails(deps.db, payer.id)).filter(
        (row) => wanted === undefined || row.id === wanted,
      );
      if (wanted !== undefined && rows.length === 0) {
        throw new AppError(
          'payment_details_not_found',
          `Payment details with ID ${wanted} not found`,
        );
      }
      return {
        paymentDetails: rows.map((row) => {
          const personal =
            row.personal === null ? null : openPaymentDetail(deps.keys, row.id, row.personal);
          return {
            id: row.id,
            userId: payer.id,
            bankName: personal?.bankName ?? '',
            accountName: personal?.accountName ?? '',
            beneficiaryType: row.beneficiaryType,
            accountNumber: personal?.accountNumber ?? personal?.iban ?? '',
            routingNumber: personal?.routingNumber ?? '',
            currency: row.currency,
            status: row.status,
            rails: row.rails,
          };
        }),
      };
    },
  );
}
