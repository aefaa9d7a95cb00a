import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import type { AgreementStatus, KycStatus, PaymentDetailStatus } from '../db/schema/payers.ts';
import { complianceEvents, payers, paymentDetails } from '../db/schema/payers.ts';
import type { PayerDeps } from './deps.ts';
import { emitComplianceUpdated, emitPaymentDetailUpdated } from './events.ts';

/**
 * The compliance provider's status callbacks, once their signature is checked: a customer's KYC
 * or terms moved (`customer.updated`), or a bank account's verification (`external_account
 * .updated`). Each change is stored with its webhook in one transaction; a callback that
 * changes nothing sends nothing. A callback whose `event_id` was applied before (a replay)
 * changes nothing (the ids are kept in `compliance_events`); one created before the last one
 * applied to that customer or account (`event_created_at`) is stale and changes nothing either.
 * Unknown ids and statuses are acknowledged, logged and ignored: an unknown status never
 * downgrades what is stored.
 */

const KYC: Readonly<Record<string, KycStatus>> = {
  not_started: 'not_started',
  under_review: 'pending',
  incomplete: 'retry_required',
  approved: 'approved',
  rejected: 'rejected',
};

const ACCOUNT: Readonly<Record<string, PaymentDetailStatus>> = {
  pending: 'pending',
  approved: 'approved',
  failed: 'failed',
};

export interface ProviderEvent {
  readonly event_id: string;
  readonly event_type: string;
  readonly created_at: Date;
  readonly event_object: Readonly<Record<string, unknown>>;
}

type Log = { info(fields: object, message: string): void };

export function parseProviderEvent(body: unknown): ProviderEvent | null {
  if (typeof body !== 'object' || body === null) return null;
  const {
    event_id: id,
    event_type: type,
    event_created_at: createdAt,
    event_object: object,
  } = body as Record<string, unknown>;
  if (typeof id !== 'string' || id === '' || id.length > 200) return null;
  if (typeof type !== 'string' || typeof object !== 'object' || object === null) return null;
  const created = typeof createdAt === 'string' ? new Date(createdAt) : null;
  if (created === null || Number.isNaN(created.getTime())) return null;
  return {
    event_id: id,
    event_type: type,
    created_at: created,
    event_object: object as Record<string, unknown>,
  };
}

export async function applyProviderEvent(
  deps: PayerDeps,
  event: ProviderEvent,
  log: Log,
): Promise<void> {
  const object = event.event_object;
  if (typeof object.id !== 'string') return;
  if (event.event_type === 'customer.updated') return customerUpdated(deps, event, object.id, log);
  if (event.event_type === 'external_account.updated')
    return accountUpdated(deps, event, object.id, log);
}

/** Records the event id; false when it was applied before (a replay). */
async function firstSeen(tx: Database, event: ProviderEvent, now: Date): Promise<boolean> {
  const [inserted] = await tx
    .insert(complianceEvents)
    .values({ eventId: event.event_id, receivedAt: now })
    .onConflictDoNothing()
    .returning();
  return inserted !== undefined;
}

const stale = (event: ProviderEvent, last: Date | null) =>
  last !== null && event.created_at.getTime() < last.getTime();

async function customerUpdated(
  deps: PayerDeps,
  event: ProviderEvent,
  customerId: string,
  log: Log,
): Promise<void> {
  const object = event.event_object;
  const kyc = KYC[String(object.kyc_status)];
  if (kyc === undefined)
    log.info({ eventId: event.event_id }, 'unknown provider KYC status ignored');
  const now = deps.clock.now();
  let changed = false;
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(payers)
      .where(eq(payers.providerUserId, customerId))
      .for('update');
    if (!row || row.erasedAt !== null) return;
    if (!(await firstSeen(tx, event, now)) || stale(event, row.providerEventAt)) {
      log.info({ eventId: event.event_id }, 'replayed or stale provider callback ignored');
      return;
    }
    const kycStatus = kyc ?? row.kycStatus;
    const agreementStatus: AgreementStatus =
      object.tos_status === 'approved' ? 'completed' : row.agreementStatus;
    await tx.update(payers).set({ providerEventAt: event.created_at }).where(eq(payers.id, row.id));
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
  event: ProviderEvent,
  accountId: string,
  log: Log,
): Promise<void> {
  const object = event.event_object;
  const status = ACCOUNT[String(object.status)];
  if (status === undefined) {
    log.info({ eventId: event.event_id }, 'unknown provider account status ignored');
    return;
  }
  const now = deps.clock.now();
  let changed = false;
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ detail: paymentDetails, clientUserId: payers.clientUserId })
      .from(paymentDetails)
      .innerJoin(payers, eq(payers.id, paymentDetails.payerId))
      .where(eq(paymentDetails.providerAccountId, accountId))
      .for('update');
    if (!row || row.detail.erasedAt !== null) return;
    if (!(await firstSeen(tx, event, now)) || stale(event, row.detail.providerEventAt)) {
      log.info({ eventId: event.event_id }, 'replayed or stale provider callback ignored');
      return;
    }
    await tx
      .update(paymentDetails)
      .set({ providerEventAt: event.created_at })
      .where(eq(paymentDetails.id, row.detail.id));
    if (row.detail.status === status) return;
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
