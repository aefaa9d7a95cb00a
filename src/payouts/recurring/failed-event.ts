import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { requests } from '../../db/schema.ts';
import { enqueue, targetWebhooks } from '../../webhooks/outbox.ts';
import type { ExecutionRow, RecurringPayoutRow } from './store.ts';

/** `payment.failed` (api-facts §1.6) for the index's request, to the schedule's audience. */
export async function enqueueFailed(
  tx: Database,
  schedule: RecurringPayoutRow,
  execution: ExecutionRow,
  reason: string,
  now: Date,
): Promise<void> {
  const webhooks = await targetWebhooks(tx, {
    accountId: schedule.accountId,
    clientIdId: schedule.clientIdId,
  });
  if (webhooks.length === 0) return;
  const [request] = await tx.select().from(requests).where(eq(requests.id, execution.requestRowId));
  if (!request) return;
  await enqueue(tx, now, webhooks, [
    {
      event: 'payment.failed',
      payload: {
        requestId: request.requestId,
        requestID: request.requestId,
        paymentReference: `0x${request.paymentReference}`,
        timestamp: now.toISOString(),
        subStatus: 'failed',
        paymentProcessor: 'request-network',
        recurringPaymentId: schedule.id,
        paymentIndex: execution.paymentIndex,
        failureReason: reason,
      },
    },
  ]);
}
