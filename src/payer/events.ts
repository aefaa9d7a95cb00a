import type {
  ComplianceUpdatedEvent,
  PaymentDetailUpdatedEvent,
} from '../../packages/client/src/webhook-events.ts';
import type { Database } from '../db/client.ts';
import type { AgreementStatus, KycStatus, PaymentDetailStatus } from '../db/schema/payers.ts';
import { enqueue, targetWebhooks } from '../webhooks/outbox.ts';

/**
 * The payer's status changes as webhooks (api-facts §1.2), written in the caller's transaction
 * to the owning account's platform-wide endpoints only (a client ID's endpoint hears of its own
 * requests, and a payer belongs to no client ID). No personal field is in them: the payer is
 * named by the integrator's `clientUserId`, and `rawPayload` is the provider's status fields
 * alone.
 */

export function isCompliant(kyc: KycStatus, agreement: AgreementStatus): boolean {
  return kyc === 'approved' && agreement === 'completed';
}

export async function emitComplianceUpdated(
  tx: Database,
  now: Date,
  payer: {
    readonly accountId: string;
    readonly clientUserId: string;
    readonly kycStatus: KycStatus;
    readonly agreementStatus: AgreementStatus;
  },
  rawPayload: Readonly<Record<string, unknown>>,
): Promise<void> {
  const payload: Omit<ComplianceUpdatedEvent, 'event'> = {
    clientUserId: payer.clientUserId,
    kycStatus: payer.kycStatus,
    agreementStatus: payer.agreementStatus,
    isCompliant: isCompliant(payer.kycStatus, payer.agreementStatus),
    timestamp: now.toISOString(),
    rawPayload,
  };
  const hooks = await targetWebhooks(tx, { accountId: payer.accountId, clientIdId: null });
  await enqueue(tx, now, hooks, [{ event: 'compliance.updated', payload: { ...payload } }]);
}

export async function emitPaymentDetailUpdated(
  tx: Database,
  now: Date,
  detail: {
    readonly accountId: string;
    readonly clientUserId: string;
    readonly paymentDetailsId: string;
    readonly status: PaymentDetailStatus;
  },
  rawPayload: Readonly<Record<string, unknown>>,
): Promise<void> {
  const payload: Omit<PaymentDetailUpdatedEvent, 'event'> = {
    clientUserId: detail.clientUserId,
    paymentDetailsId: detail.paymentDetailsId,
    status: detail.status,
    timestamp: now.toISOString(),
    rawPayload,
  };
  const hooks = await targetWebhooks(tx, { accountId: detail.accountId, clientIdId: null });
  await enqueue(tx, now, hooks, [{ event: 'payment_detail.updated', payload: { ...payload } }]);
}
