import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.ts';
import { accessRejections, webhookDeliveries } from '../db/schema.ts';
import { orchestratorOfClientId } from '../orchestrators/orchestrators.ts';
import { orchestratorWebhookIds } from '../webhooks/orchestrator-webhooks.ts';
import { enqueue, targetWebhooks } from '../webhooks/outbox.ts';

/**
 * The two events screening sends: `secure_payment.access_rejected` to the link's account when a
 * wallet off its allowlist tries it (api-facts §1.2 row 14, §1.6), at most once per wallet and
 * link per `ACCESS_REJECTED_WINDOW_MS` unless every delivery of the last one failed; and
 * `kyt.screening.completed` to the orchestrator of the link's client ID (§11.6) for each
 * screening a provider answered (never for provider errors).
 */

export const ACCESS_REJECTED_WINDOW_MS = 10 * 60_000;

export interface EventLink {
  readonly id: string;
  readonly token: string;
  readonly accountId: string;
  readonly clientIdId: string | null;
  readonly requestId: string;
}

/**
 * Reports the refused wallet unless it was within the window. The claim and the deliveries are
 * written in one transaction: two processes refusing the wallet at once report it once.
 */
export async function reportAccessRejected(
  db: Database,
  now: Date,
  link: EventLink,
  wallet: string,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const since = new Date(now.getTime() - ACCESS_REJECTED_WINDOW_MS);
    const claimed = await queryRows<{ wallet: string }>(
      tx,
      sql`insert into ${accessRejections} (secure_payment_id, wallet, notified_at, delivery_ids)
          values (${link.id}, ${wallet}, ${now.toISOString()}::timestamptz, '{}')
          on conflict (secure_payment_id, wallet) do update
            set notified_at = excluded.notified_at, delivery_ids = '{}'
            where ${accessRejections.notifiedAt} <= ${since.toISOString()}::timestamptz
               or not exists (
                 select 1 from ${webhookDeliveries}
                 where ${webhookDeliveries.id} = any(${accessRejections.deliveryIds})
                   and ${webhookDeliveries.status} <> 'failed')
          returning wallet`,
    );
    if (claimed.length === 0) return false;
    const webhookIds = await targetWebhooks(tx, {
      accountId: link.accountId,
      clientIdId: link.clientIdId,
    });
    const ids = await enqueue(tx, now, webhookIds, [
      {
        event: 'secure_payment.access_rejected',
        payload: {
          requestId: link.requestId,
          attemptedPayerWalletAddress: wallet,
          timestamp: now.toISOString(),
        },
      },
    ]);
    await queryRows(
      tx,
      sql`update ${accessRejections} set delivery_ids = ${`{${ids.join(',')}}`}::text[]
          where secure_payment_id = ${link.id} and wallet = ${wallet} returning wallet`,
    );
    return ids.length > 0;
  });
}

/** Tells the orchestrator of the link's client ID (if any) what a provider answered. */
export async function reportScreening(
  db: Database,
  now: Date,
  link: EventLink,
  result: {
    readonly walletAddress: string;
    readonly eoaAddress: string;
    readonly smartAccountAddress: string | null;
    readonly status: 'approved' | 'rejected';
    readonly provider: string;
    readonly policyId: string | null;
  },
): Promise<boolean> {
  if (link.clientIdId === null) return false;
  const orchestratorId = await orchestratorOfClientId(db, link.clientIdId);
  if (orchestratorId === null) return false;
  const ids = await enqueue(db, now, await orchestratorWebhookIds(db, orchestratorId), [
    {
      event: 'kyt.screening.completed',
      payload: {
        paymentToken: link.token,
        ...result,
        timestamp: now.toISOString(),
      },
    },
  ]);
  return ids.length > 0;
}

export const COMPLIANCE_NOT_ALLOWED = 'The payer is not on the link’s list of allowed wallets';
export const COMPLIANCE_REJECTED =
  'The payer did not pass the compliance screening the link requires';

/** The payer a completed link failed on, and why. */
export interface Refusal {
  readonly requestId: string;
  readonly paymentReference: string;
  /** In compared form: EVM lower-cased, Tron as written. */
  readonly wallet: string;
  readonly reason: string;
}

/**
 * `payment.failed` (`subStatus` `compliance_failed`) to the link's account's endpoints (and its
 * client ID's): the link was paid, but by a wallet it refuses, so it is not settled.
 */
export async function reportComplianceFailed(
  db: Database,
  now: Date,
  link: Omit<EventLink, 'requestId'>,
  refusal: Refusal,
): Promise<void> {
  const webhookIds = await targetWebhooks(db, {
    accountId: link.accountId,
    clientIdId: link.clientIdId,
  });
  await enqueue(db, now, webhookIds, [
    {
      event: 'payment.failed',
      payload: {
        requestId: refusal.requestId,
        requestID: refusal.requestId,
        paymentReference: `0x${refusal.paymentReference}`,
        timestamp: now.toISOString(),
        subStatus: 'compliance_failed',
        paymentProcessor: 'request-network',
        failureReason: refusal.reason,
        securePaymentToken: link.token,
        payerAddress: refusal.wallet,
      },
    },
  ]);
}
