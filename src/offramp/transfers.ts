import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import { AppError } from '../base/errors.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { offrampTransfers, payers, paymentDetails, requests } from '../db/schema.ts';
import { formatAmount } from '../payments/amounts.ts';
import { offrampRail } from '../requests/crypto-to-fiat.ts';
import type { RequestRow } from '../requests/requests.ts';
import type { OfframpProvider } from './provider.ts';
import { FINAL_RANK } from './states.ts';

/**
 * A crypto-to-fiat payment's transfer: the payer and payment details checked (the contract with
 * src/payer/: a payer is compliant when its KYC is `approved` and its agreement `completed`,
 * its payment details usable when `approved`), then the transfer at the provider, kept in
 * `offramp_transfers`: reused while it awaits the same deposit, else a new one (`sequence`).
 */

/** The request's `offrampStatus` once its deposit is seen on chain, before any report. */
const DEPOSIT_RECEIVED = 'deposit_received';

export type TransferRow = typeof offrampTransfers.$inferSelect;

export interface OfframpIds {
  readonly clientUserId: string;
  readonly paymentDetailsId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const NOT_ALLOWED_MESSAGE =
  'This request does not allow crypto-to-fiat payments: create it with isCryptoToFiatAvailable: true';

/**
 * The deposit address `row` is to be paid to for these payment details: the transfer made
 * before for them, or a new one. Every refusal comes before the provider is asked, so a
 * refused call creates nothing.
 */
export async function transferFor(
  deps: {
    readonly db: Database;
    readonly chains: ChainRegistry;
    readonly provider: OfframpProvider;
  },
  row: RequestRow,
  ids: OfframpIds,
  amount: bigint,
): Promise<TransferRow> {
  if (!row.cryptoToFiat) throw new AppError('crypto_to_fiat_not_allowed', NOT_ALLOWED_MESSAGE);
  const [payer] = await deps.db
    .select()
    .from(payers)
    .where(and(eq(payers.accountId, row.accountId), eq(payers.clientUserId, ids.clientUserId)))
    .limit(1);
  if (!payer || payer.erasedAt !== null) {
    throw new AppError(
      'payer_not_found',
      `Payer with client user ID ${ids.clientUserId} not found`,
    );
  }
  if (payer.kycStatus !== 'approved' || payer.agreementStatus !== 'completed') {
    throw new AppError(
      'payer_not_compliant',
      `Payer ${ids.clientUserId} is not compliant: its KYC must be approved and its agreement completed`,
    );
  }
  const [details] = UUID.test(ids.paymentDetailsId)
    ? await deps.db
        .select()
        .from(paymentDetails)
        .where(
          and(
            eq(paymentDetails.id, ids.paymentDetailsId),
            eq(paymentDetails.payerId, payer.id),
            eq(paymentDetails.accountId, row.accountId),
          ),
        )
        .limit(1)
    : [];
  if (!details || details.erasedAt !== null) {
    throw new AppError(
      'payment_details_not_usable',
      `Payment details ${ids.paymentDetailsId} are not this payer's`,
    );
  }
  if (details.status !== 'approved') {
    throw new AppError(
      'payment_details_not_usable',
      `Payment details ${ids.paymentDetailsId} are not approved yet`,
    );
  }
  // The last transfer is answered again while it awaits the same deposit; once it was paid,
  // ended or is for another amount, a new one is made for what is due now.
  const latest = await latestTransfer(deps.db, row.id, details.id);
  if (
    latest &&
    latest.status === 'awaiting_funds' &&
    latest.txHash === null &&
    latest.amount === amount
  )
    return latest;
  const sequence = (latest?.sequence ?? 0) + 1;
  const rail = offrampRail(row.network);
  const currency = deps.chains.currency(row.paymentCurrency);
  if (rail === undefined || !currency) {
    throw new AppError('crypto_to_fiat_not_allowed', NOT_ALLOWED_MESSAGE);
  }
  // The key makes the provider answer the same transfer to a retry, or to a racing call, of
  // the same amount; another amount is another transfer (a key of the sequence alone, after a
  // crash between this call and the insert, would answer the first amount's transfer).
  const created = await deps.provider.createTransfer({
    idempotencyKey: `${row.id}:${details.id}:${sequence}:${amount}`,
    rail,
    currency: currency.symbol.toLowerCase(),
    amount: formatAmount(amount, currency.decimals),
    externalAccountId: details.providerAccountId ?? details.id,
    clientReferenceId: row.requestId,
  });
  // A racing call may take this sequence first. For this amount, the provider answered it the
  // same transfer (the same key): its row serves. For another, this transfer goes in after it,
  // so each call's deposit address expects its own amount and no transfer is left unrecorded.
  for (let at = sequence; ; ) {
    const [inserted] = await deps.db
      .insert(offrampTransfers)
      .values({
        accountId: row.accountId,
        requestRowId: row.id,
        payerId: payer.id,
        paymentDetailsId: details.id,
        sequence: at,
        providerTransferId: created.id,
        network: row.network,
        depositAddress: created.depositAddress,
        amount,
      })
      .onConflictDoNothing()
      .returning();
    if (inserted) return inserted;
    const raced = await latestTransfer(deps.db, row.id, details.id);
    if (raced === undefined || raced.sequence < at)
      throw new Error('off-ramp transfer neither inserted nor found');
    if (raced.amount === amount) return raced;
    at = raced.sequence + 1;
  }
}

async function latestTransfer(
  db: Database,
  requestRowId: string,
  paymentDetailsId: string,
): Promise<TransferRow | undefined> {
  const [found] = await db
    .select()
    .from(offrampTransfers)
    .where(
      and(
        eq(offrampTransfers.requestRowId, requestRowId),
        eq(offrampTransfers.paymentDetailsId, paymentDetailsId),
      ),
    )
    .orderBy(desc(offrampTransfers.sequence))
    .limit(1);
  return found;
}

/**
 * The deposit addresses of these requests' transfers that have not ended, as `<request row id>
 * <address, lower case>`: detection counts a payment to one for its own request only, and a
 * payment to an ended transfer's address for none (the provider sends no fiat for it).
 */
export async function depositKeys(
  db: Database,
  requestRowIds: readonly string[],
): Promise<Set<string>> {
  if (requestRowIds.length === 0) return new Set();
  const rows = await db
    .select({ requestRowId: offrampTransfers.requestRowId, key: offrampTransfers.depositKey })
    .from(offrampTransfers)
    .where(
      and(
        inArray(offrampTransfers.requestRowId, [...new Set(requestRowIds)]),
        lt(offrampTransfers.rank, FINAL_RANK),
      ),
    );
  return new Set(rows.map((r) => `${r.requestRowId} ${r.key}`));
}

/**
 * Detection recorded a payment of the request to one of its deposit addresses: the transfer
 * keeps its transaction. True when it was a transfer's (its events are the provider's to send).
 */
export async function fundTransfer(
  tx: Database,
  requestRowId: string,
  depositAddress: string,
  txHash: string,
  now: Date,
): Promise<boolean> {
  const funded = await tx
    .update(offrampTransfers)
    .set({ txHash: sql`coalesce(${offrampTransfers.txHash}, ${txHash})`, updatedAt: now })
    .where(
      and(
        eq(offrampTransfers.requestRowId, requestRowId),
        eq(offrampTransfers.depositKey, depositAddress.toLowerCase()),
      ),
    )
    .returning({ id: offrampTransfers.id });
  if (funded.length === 0) return false;
  // Paid on chain, nothing reported yet: the request shows processing from here.
  await tx
    .update(requests)
    .set({
      // A new transfer after one failed or bounced starts over.
      offrampStatus: sql`case when ${requests.offrampStatus} in ('failed', 'bounced') then ${DEPOSIT_RECEIVED} else coalesce(${requests.offrampStatus}, ${DEPOSIT_RECEIVED}) end`,
    })
    .where(eq(requests.id, requestRowId));
  return true;
}
