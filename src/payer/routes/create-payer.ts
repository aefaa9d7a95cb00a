import { isDeepStrictEqual } from 'node:util';
import { eq } from 'drizzle-orm';
import type { Static } from 'typebox';
import { AppError } from '../../base/errors.ts';
import { uuidV7 } from '../../base/uuid-v7.ts';
import { payers } from '../../db/schema/payers.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { type PayerDeps, providerFailed, providerOf } from '../deps.ts';
import { emitComplianceUpdated } from '../events.ts';
import { openPayer, type PayerPersonal, sealPersonal } from '../personal.ts';
import { type ProviderCustomerInput, ProviderRefusal } from '../provider.ts';
import { checkBirthDate, PAYER_AUTH, PAYER_TAGS, PayerBody, PayerCreated } from '../schemas.ts';
import { findPayer, type PayerRow } from '../store.ts';

/**
 * `POST /v1|v2/payer`: the payer's KYC data, sealed, and sent to the compliance provider, whose
 * KYC and terms pages come back as `kycUrl` and `agreementUrl`. Sending the same `clientUserId`
 * again (same account) re-submits: the data is replaced, the provider told, and the answer names
 * the same `userId`. An erased payer's `clientUserId` starts over as a new submission on its row.
 */
export function registerCreatePayer(app: App, deps: PayerDeps, prefix: string): void {
  app.post(
    prefix,
    {
      config: { auth: PAYER_AUTH },
      schema: {
        tags: PAYER_TAGS,
        summary: 'Submit a payer’s KYC data',
        body: PayerBody,
        response: { 200: PayerCreated },
      },
    },
    async (request) => {
      checkBirthDate(request.body.dateOfBirth, deps.clock.now());
      const accountId = accountIdOf(request);
      const { clientUserId, ...personal } = request.body;
      const provider = providerOf(deps);
      const now = deps.clock.now();
      const existing = await findPayer(deps.db, accountId, clientUserId);
      // A first submission (or one the provider never answered) is stored before the call: its
      // row is the call's idempotency key (customerKey), so a retry after a failure is safe. A
      // re-submission of a payer the provider knows is stored only once the provider took it.
      const first =
        existing === null || existing.erasedAt !== null || existing.providerUserId === null;
      const row = first
        ? await storeSubmission(deps, accountId, clientUserId, personal, now)
        : existing;
      const input = customerInput(personal);
      let created = false;
      try {
        const customer =
          row.providerUserId === null
            ? await provider.createCustomer(input, customerKey(row))
            : await provider.updateCustomer(row.providerUserId, input);
        if (row.providerUserId === null) {
          // Kept before the next call: whatever it answers, the provider holds the payer's data
          // now, and erasure must be able to reach it (a retry re-submits to this customer).
          created = true;
          await deps.db
            .update(payers)
            .set({ providerUserId: customer.id })
            .where(eq(payers.id, row.id));
        }
        const links = await provider.links(customer.id);
        const resubmitted = first
          ? null
          : { personal, changed: !samePersonal(deps, row, personal) };
        return await recordLinks(deps, row, customer.id, links, resubmitted);
      } catch (error) {
        if (error instanceof ProviderRefusal) {
          // A refused first submission leaves nothing behind (unless the provider created its
          // customer before refusing the links); a refused re-submission was never written.
          if (created) {
            // The row stands as the provider now knows it, with no links yet.
          } else if (existing === null) await deps.db.delete(payers).where(eq(payers.id, row.id));
          else if (existing.erasedAt !== null) {
            await deps.db
              .update(payers)
              .set({ personal: null, keyId: null, erasedAt: existing.erasedAt })
              .where(eq(payers.id, row.id));
          }
          throw new AppError(
            'kyc_submission_refused',
            'The compliance provider refused the KYC submission',
            { cause: error.message },
          );
        }
        if (error instanceof AppError) throw error;
        throw providerFailed(error, request.log);
      }
    },
  );
}

/**
 * The idempotency key that creates a payer's customer: its row id, the same for every retry of
 * a submission; with the generation after an erasure, so a payer starting over is a new
 * customer, not the erased one the provider remembers under the first key.
 */
function customerKey(row: PayerRow): string {
  return row.providerGeneration === 0 ? row.id : `${row.id}:${row.providerGeneration}`;
}

/** Whether a re-submission carries the very data that was approved (then its KYC stands). */
function samePersonal(deps: PayerDeps, row: PayerRow, personal: PayerPersonal): boolean {
  if (row.personal === null) return false;
  let stored: PayerPersonal;
  try {
    stored = openPayer(deps.keys, row.id, row.personal);
  } catch {
    return false;
  }
  return isDeepStrictEqual(normalized(stored), normalized(personal));
}

function normalized(personal: PayerPersonal): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(personal)
      .filter(([, value]) => value !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

async function storeSubmission(
  deps: PayerDeps,
  accountId: string,
  clientUserId: string,
  personal: PayerPersonal,
  now: Date,
): Promise<PayerRow> {
  const existing = await findPayer(deps.db, accountId, clientUserId);
  const id = existing?.id ?? uuidV7();
  const sealed = sealPersonal(deps.keys, 'payers', id, personal);
  if (existing === null) {
    const [inserted] = await deps.db
      .insert(payers)
      .values({ id, accountId, clientUserId, ...sealed, createdAt: now, updatedAt: now })
      .onConflictDoNothing()
      .returning();
    if (inserted) return inserted;
    // A concurrent first submission won: this one re-submits on its row.
    return storeSubmission(deps, accountId, clientUserId, personal, now);
  }
  const [updated] = await deps.db
    .update(payers)
    .set({
      ...sealed,
      updatedAt: now,
      // An erased payer starts over: a new customer at the provider, every status anew.
      ...(existing.erasedAt !== null && {
        erasedAt: null,
        providerUserId: null,
        providerGeneration: existing.providerGeneration + 1,
        kycStatus: 'not_started' as const,
        agreementStatus: 'not_started' as const,
        kycUrl: null,
        agreementUrl: null,
      }),
    })
    .where(eq(payers.id, existing.id))
    .returning();
  if (!updated) throw new Error('payer row vanished');
  return updated;
}

/** The links and the started KYC; `compliance.updated` when a status moved. */
async function recordLinks(
  deps: PayerDeps,
  row: PayerRow,
  providerUserId: string,
  links: { kycUrl: string; tosUrl: string },
  resubmitted: { personal: PayerPersonal; changed: boolean } | null,
): Promise<Static<typeof PayerCreated>> {
  const now = deps.clock.now();
  // New KYC data restarts the KYC, whatever it stood at: an approval was of other data.
  const restarts =
    resubmitted?.changed === true ||
    ['not_started', 'rejected', 'retry_required', 'failed'].includes(row.kycStatus);
  const kycStatus = restarts ? 'initiated' : row.kycStatus;
  const agreementStatus = row.agreementStatus === 'not_started' ? 'pending' : row.agreementStatus;
  await deps.db.transaction(async (tx) => {
    await tx
      .update(payers)
      .set({
        ...(resubmitted !== null &&
          sealPersonal(deps.keys, 'payers', row.id, resubmitted.personal)),
        providerUserId,
        kycUrl: links.kycUrl,
        agreementUrl: links.tosUrl,
        kycStatus,
        agreementStatus,
        updatedAt: now,
      })
      .where(eq(payers.id, row.id));
    if (kycStatus !== row.kycStatus || agreementStatus !== row.agreementStatus) {
      await emitComplianceUpdated(
        tx,
        now,
        { accountId: row.accountId, clientUserId: row.clientUserId, kycStatus, agreementStatus },
        { source: 'submission', customerId: providerUserId },
      );
    }
  });
  deps.wake?.();
  return {
    agreementUrl: links.tosUrl,
    kycUrl: links.kycUrl,
    status: {
      agreementStatus: agreementStatus === 'completed' ? 'completed' : 'not_started',
      kycStatus: kycStatus === 'approved' ? 'completed' : 'not_started',
    },
    userId: row.id,
  };
}

function customerInput(personal: PayerPersonal): ProviderCustomerInput {
  return {
    type: personal.beneficiaryType,
    first_name: personal.firstName,
    last_name: personal.lastName,
    business_name: personal.companyName,
    email: personal.email,
    phone: personal.phone,
    birth_date: personal.dateOfBirth,
    nationality: personal.nationality,
    tax_identification_number: personal.ssn,
    address: {
      street_line_1: personal.addressLine1,
      street_line_2: personal.addressLine2,
      city: personal.city,
      subdivision: personal.state,
      postal_code: personal.postcode,
      country: personal.country,
    },
    source_of_funds: personal.sourceOfFunds,
    business_activity: personal.businessActivity,
  };
}
