import { and, eq } from 'drizzle-orm';
import { AppError, type FieldError, ValidationError } from '../base/errors.ts';
import { legSource } from '../crosschain/leg-route.ts';
import type { Database } from '../db/client.ts';
import { paymentIntents } from '../db/schema.ts';
import {
  checkAddress,
  checkToken,
  details,
  type IntentBody,
  type IntentDeps,
  networkOf,
} from './intent-body.ts';
import { assertOneLeg } from './link-crosschain.ts';
import { type Link, linkLegs } from './links.ts';

/**
 * How long a bridge transfer is followed before it counts as failed. Across fills in minutes
 * and refunds an unfilled deposit after its fill deadline, hours at most: a day is past both.
 */
const BRIDGE_TRACKING_MS = 24 * 60 * 60 * 1000;

/**
 * A payer's transaction on another network that bridges the link's payment to the link's own
 * (api-facts §2.8, `executionKind: evm_cross_chain`): recorded as `bridging`, and followed by
 * the bridge tracker through the routing aggregator until delivered, failed or refunded. The
 * link stays payable meanwhile (only a Safe transaction answers 423), and detection sees the
 * delivering payment on the link's network as any other.
 */
export async function recordBridgeIntent(deps: IntentDeps, link: Link, body: IntentBody) {
  const errors: FieldError[] = [];
  const source = networkOf(body.chain);
  if (source === null) errors.push({ field: 'chain', message: `unknown chain ${body.chain}` });
  else if (source === link.row.network) {
    errors.push({
      field: 'executionKind',
      message: `evm_cross_chain names another network than the link's, not ${body.chain}`,
    });
  }
  if (deps.chains.network(link.row.network)?.kind !== 'evm') {
    errors.push({
      field: 'chain',
      message: `a link on ${link.row.network} cannot be paid from another network`,
    });
  }
  checkToken(link, body, errors);
  if (body.safePaymentDeadline !== undefined) {
    errors.push({ field: 'safePaymentDeadline', message: 'is only taken with safeTxHash' });
  }
  checkAddress('payerAddress', body.payerAddress, errors);
  checkAddress('payerEoaAddress', body.payerEoaAddress, errors);
  if (errors.length > 0 || source === null) throw new ValidationError(errors);

  const now = deps.clock.now();
  assertPayableFrom(deps, link, body, now);
  const txHash = body.txHash?.toLowerCase() ?? null;
  if (txHash !== null) {
    const recorded = await recordedTransfer(deps.db, link, txHash);
    if (recorded) return intentAnswer(link, recorded);
  }
  const [intent] = await deps.db
    .insert(paymentIntents)
    .values({
      securePaymentId: link.row.id,
      kind: 'bridge',
      status: 'bridging',
      network: source,
      txHash,
      payerAddress: body.payerAddress ?? null,
      payerEoaAddress: body.payerEoaAddress ?? null,
      details: details(body),
      bridgeDeadline: new Date(now.getTime() + BRIDGE_TRACKING_MS),
      createdAt: now,
    })
    .returning();
  if (!intent) throw new Error('payment intent insert returned no row');
  return intentAnswer(link, intent);
}

/**
 * The source named must be one `/pay` routes this link from, refused as `/pay` refuses it: a
 * batch still owing several requests, a link in fiat or a native currency, a chain or token
 * its `paymentOptions` do not offer (`sourceToken` when sent, else `token`).
 */
function assertPayableFrom(deps: IntentDeps, link: Link, body: IntentBody, now: Date): void {
  const legs = linkLegs(deps.chains, link, now);
  assertOneLeg(legs);
  const [leg] = legs;
  if (!leg) return;
  const token = typeof body.sourceToken === 'string' ? body.sourceToken : (body.token ?? '');
  legSource(deps, leg, 'link', body.chain, token);
}

/**
 * The intent a transfer was recorded as already: the same answer to the same transfer sent
 * again (a page retrying), 409 when another link holds it (one transaction pays one link).
 */
async function recordedTransfer(db: Database, link: Link, txHash: string) {
  const [row] = await db
    .select()
    .from(paymentIntents)
    .where(and(eq(paymentIntents.kind, 'bridge'), eq(paymentIntents.txHash, txHash)))
    .limit(1);
  if (!row) return null;
  if (row.securePaymentId !== link.row.id) {
    throw new AppError(
      'transfer_recorded_elsewhere',
      'This transaction is recorded as a transfer to another link',
    );
  }
  return row;
}

function intentAnswer(
  link: Link,
  intent: { id: string; txHash: string | null; payerAddress: string | null },
) {
  const [first] = link.requests;
  return {
    intentId: intent.id,
    paymentReference: first ? `0x${first.paymentReference}` : '',
    ...(intent.txHash !== null && { txHash: intent.txHash }),
    isListening: true,
    ...(intent.payerAddress !== null && { payerAddress: intent.payerAddress }),
  };
}

type TransferStatus = 'bridging' | 'delivered' | 'executed' | 'failed' | 'refunded';

/**
 * The link's latest transfers from other networks and where each stands (the display's
 * `bridgeTransfers`, payreq's): how the pay page that sent one learns it failed or was
 * refunded, which the link alone cannot say (it stays payable either way). `loadLink` reads
 * them with the link.
 */
export function bridgeTransfersOf(link: Link): { txHash: string; status: TransferStatus }[] {
  return link.bridgeTransfers.flatMap(({ txHash, status }) =>
    isTransferStatus(status) ? [{ txHash, status }] : [],
  );
}

function isTransferStatus(status: string): status is TransferStatus {
  return ['bridging', 'delivered', 'executed', 'failed', 'refunded'].includes(status);
}
