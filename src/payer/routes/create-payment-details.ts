import { AppError } from '../../base/errors.ts';
import { uuidV7 } from '../../base/uuid-v7.ts';
import { paymentDetails } from '../../db/schema/payers.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { type PayerDeps, providerFailed, providerOf } from '../deps.ts';
import { emitPaymentDetailUpdated } from '../events.ts';
import { type PaymentDetailPersonal, sealPersonal } from '../personal.ts';
import { type ProviderAccountInput, ProviderFailure, ProviderRefusal } from '../provider.ts';
import {
  ClientUserIdParams,
  checkBirthDate,
  PAYER_AUTH,
  PAYER_TAGS,
  PaymentDetailCreated,
  PaymentDetailsBody,
} from '../schemas.ts';
import { detailStatusOf, detailsOfAccount, livePayerForDetails } from '../store.ts';

const invalid = () => new AppError('invalid_bank_account', 'Invalid bank account details');

/**
 * `POST /v1|v2/payer/{clientUserId}/payment-details`: a bank account, sent to the compliance
 * provider for verification and stored sealed, `pending` until the provider's verdict arrives
 * (`payment_detail.updated`). Details the provider refuses are not stored.
 */
export function registerCreatePaymentDetails(app: App, deps: PayerDeps, prefix: string): void {
  app.post(
    `${prefix}/:clientUserId/payment-details`,
    {
      config: { auth: PAYER_AUTH },
      schema: {
        tags: PAYER_TAGS,
        summary: 'Add a payer’s bank account',
        params: ClientUserIdParams,
        body: PaymentDetailsBody,
        response: { 201: PaymentDetailCreated },
      },
    },
    async (request, reply) => {
      checkBirthDate(request.body.dateOfBirth, deps.clock.now());
      const accountId = accountIdOf(request);
      const { clientUserId } = request.params;
      const payer = await livePayerForDetails(deps.db, accountId, clientUserId);
      const { currency, rails = 'local', beneficiaryType, ...personal } = request.body;
      if (personal.accountNumber === undefined && personal.iban === undefined) throw invalid();
      const provider = providerOf(deps);
      if (payer.providerUserId === null) {
        throw providerFailed(
          new ProviderFailure('the payer has no provider customer yet'),
          request.log,
        );
      }
      const input = accountInput({ ...personal, currency, rails, beneficiaryType });
      // The same details sent again the same day (after a timeout, or a crash before the row
      // was written) are the same account at the provider: the key is a keyed digest of the
      // customer, the UTC day and what is sent, never the data itself. The day keeps the key
      // within the provider's memory of keys (a day), past which a reused key is refused.
      const day = deps.clock.now().toISOString().slice(0, 10);
      const key = deps.keys.digest(
        JSON.stringify(input),
        `bank account:${payer.providerUserId}:${day}`,
      );
      let account: { id: string; status: string };
      try {
        account = await provider.createAccount(payer.providerUserId, input, key);
      } catch (error) {
        if (error instanceof ProviderRefusal) throw invalid();
        throw providerFailed(error, request.log);
      }
      const created = (id: string) =>
        reply.code(201).send({
          payment_detail: {
            id,
            clientUserId,
            bankName: personal.bankName,
            accountName: personal.accountName,
            currency: currency.toLowerCase(),
            beneficiaryType,
          },
        });
      // Sent again, they are the details already stored for that account.
      const known = await detailsOfAccount(deps.db, payer.id, account.id);
      if (known !== null) return created(known);
      const id = uuidV7();
      const now = deps.clock.now();
      const status = detailStatusOf(account.status);
      await deps.db.transaction(async (tx) => {
        await tx.insert(paymentDetails).values({
          id,
          payerId: payer.id,
          accountId,
          providerAccountId: account.id,
          status,
          currency: currency.toLowerCase(),
          rails,
          beneficiaryType,
          ...sealPersonal(deps.keys, 'payment_details', id, personal),
          createdAt: now,
          updatedAt: now,
        });
        if (status !== 'pending') {
          await emitPaymentDetailUpdated(
            tx,
            now,
            { accountId, clientUserId, paymentDetailsId: id, status },
            { id: account.id, status: account.status },
          );
        }
      });
      if (status !== 'pending') deps.wake?.();
      return created(id);
    },
  );
}

function accountInput(
  details: PaymentDetailPersonal & {
    currency: string;
    rails: 'local' | 'swift' | 'wire';
    beneficiaryType: 'individual' | 'business';
  },
): ProviderAccountInput {
  const codes: Record<string, string> = {};
  for (const name of ['ribNumber', 'bsbNumber', 'ncc', 'branchCode', 'bankCode', 'ifsc'] as const) {
    const value = details[name];
    if (value !== undefined) codes[name] = value;
  }
  return {
    bank_name: details.bankName,
    account_owner_name: details.accountName,
    account_owner_type: details.beneficiaryType,
    currency: details.currency.toLowerCase(),
    rails: details.rails,
    account_type: details.accountType,
    account_number: details.accountNumber,
    routing_number: details.routingNumber,
    iban: details.iban,
    swift_bic: details.swiftBic,
    sort_code: details.sortCode,
    bank_codes: codes,
    owner_birth_date: details.dateOfBirth,
    owner_document:
      details.documentNumber === undefined
        ? undefined
        : { number: details.documentNumber, type: details.documentType },
    address: {
      street_line_1: details.addressLine1,
      street_line_2: details.addressLine2,
      city: details.city,
      subdivision: details.state,
      postal_code: details.postalCode,
      country: details.country,
    },
  };
}
