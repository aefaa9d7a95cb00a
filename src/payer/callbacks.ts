import { eq } from 'drizzle-orm';
import type { AgreementStatus, KycStatus } from '../db/schema/payers.ts';
import { payers, paymentDetails } from '../db/schema/payers.ts';
import type { PayerDeps } from './deps.ts';
import { emitComplianceUpdated, emitPaymentDetailUpdated } from './events.ts';
import { detailStatusOf } from './store.ts';

/**
 * The compliance provider's status callbacks, once their signature is checked: a customer's KYC
 * or terms moved (`customer.updated`), or a bank account's verification (`external_account
 * .updated`). Each change is stored with its webhook in one transaction; a callback that
 * changes nothing (a repeat) sends nothing. Unknown ids are acknowledged and ignored.
 */

const KYC: Readonly<Record<string, KycStatus>> = {
  not_started: 'not_started',
  under_review: 'pending',
  incomplete: 'retry_required',
  approved: 'approved',
  rejected: 'rejected',
};

export interface ProviderEvent {
  readonly event_type: string;
  readonly event_object: Readonly<Record<string, unknown>>;
}

export function parseProviderEvent(body: unknown): ProviderEvent | null {
  if (typeof body !== 'object' || body === null) return null;
  const { event_type: type, event_object: object } = body as Record<string, unknown>;
  if (typeof type !== 'string' || typeof object !== 'object' || object === null) return null;
  return { event_type: type, event_object: object as Record<string, unknown> };
}

export async function applyProviderEvent(deps: PayerDeps, event: ProviderEvent): Promise<void> {
  const object = event.event_object;
  if (typeof object.id !== 'string') return;
  if (event.event_type === 'customer.updated') return customerUpdated(deps, object.id, object);
  if (event.event_type === 'external_account.updated')
    return accountUpdated(deps, object.id, object);
}

async function customerUpdated(
  deps: PayerDeps,
  customerId: string,
  object: Readonly<Record<string, unknown>>,
): Promise<void> {
  const kyc = KYC[String(object.kyc_status)];
  const now = deps.clock.now();
  let changed = false;
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(payers)
      .where(eq(payers.providerUserId, customerId))
      .for('update');
    if (!row || row.erasedAt !== null) return;
    const kycStatus = kyc ?? row.kycStatus;
    const agreementStatus: AgreementStatus =
      object.tos_status === 'approved' ? 'completed' : row.agreementStatus;
    if (kycStatus === row.kycStatus && agreementStatus === row.agreementStatus) return;
    await tx
      .update(payers)
      .set({ kycStatus, agreementStatus, updatedAt: now })
      .where(eq(payers.id, row.id));
    await emitComplianceUpdated(
      tx,
      now,
      { accountId: row.accountId, clientUserId: row.clientUserId, kycStatus, agreementStatus },
      {
        event_type: 'customer.updated',
        id: customerId,
        kyc_status: String(object.kyc_status),
        tos_status: String(object.tos_status),
      },
    );
    changed = true;
  });
  if (changed) deps.wake?.();
}

async function accountUpdated(
  deps: PayerDeps,
  accountId: string,
  object: Readonly<Record<string, unknown>>,
): Promise<void> {
  const status = detailStatusOf(String(object.status));
  const now = deps.clock.now();
  let changed = false;
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ detail: paymentDetails, clientUserId: payers.clientUserId })
      .from(paymentDetails)
      .innerJoin(payers, eq(payers.id, paymentDetails.payerId))
      .where(eq(paymentDetails.providerAccountId, accountId))
      .for('update');
    if (!row || row.detail.erasedAt !== null || row.detail.status === status) return;
    await tx
      .update(paymentDetails)
      .set({ status, updatedAt: now })
      .where(eq(paymentDetails.id, row.detail.id));
    await emitPaymentDetailUpdated(
      tx,
      now,
      {
        accountId: row.detail.accountId,
        clientUserId: row.clientUserId,
        paymentDetailsId: row.detail.id,
        status,
      },
      { event_type: 'external_account.updated', id: accountId, status: String(object.status) },
    );
    changed = true;
  });
  if (changed) deps.wake?.();
}
