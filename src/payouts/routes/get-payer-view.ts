import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { loadByPayToken } from '../recurring/refusals.ts';
import {
  PAY_TOKEN_AUTH,
  PayTokenParams,
  RecurringPaymentPermit,
  Status,
} from '../recurring/schemas.ts';
import { payerView } from '../recurring/views.ts';
import { PAYOUT_TAGS } from '../schemas.ts';

const PayerViewResponse = Type.Object({
  id: Type.String(),
  status: Status,
  network: Type.String(),
  chainId: Type.Integer(),
  currency: Type.String(),
  amount: Type.String({ description: 'Each payment, to the payee' }),
  feeAmount: Type.String({ description: 'Each payment’s platform fee, on top of `amount`' }),
  frequency: Type.String(),
  startDate: Type.String(),
  paymentDates: Type.Array(Type.String(), {
    description: 'The calendar date of every payment, the first (index 1) first',
  }),
  totalPayments: Type.Integer(),
  processedPayments: Type.Integer(),
  lastPaymentDate: Type.Union([Type.String(), Type.Null()]),
  nextPaymentDate: Type.Union([Type.String(), Type.Null()]),
  payer: Type.String({ description: 'The only wallet that may approve and sign' }),
  payee: Type.String(),
  recurringPaymentPermit: RecurringPaymentPermit,
});

export function registerGetPayerView(
  app: App,
  deps: { db: Database; chains: ChainRegistry },
): void {
  app.get(
    '/v2/payouts/recurring/token/:token',
    {
      config: { auth: PAY_TOKEN_AUTH, payPage: true },
      schema: {
        tags: PAYOUT_TAGS,
        summary: 'A recurring payout as its payer sees it, by its pay token',
        description:
          'What the hosted page shows (amount, payee, every payment date, status) and the `recurringPaymentPermit` the payer signs.',
        params: PayTokenParams,
        response: { 200: PayerViewResponse },
      },
    },
    async (request) =>
      payerView(deps, await loadByPayToken(deps.db, linkScopeOf(request), request.params.token)),
  );
}
