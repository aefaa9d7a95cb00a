import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { FeePlan, PlanFee, PlanFeeBearer } from '../base/fee-plan.ts';
import type { Currency } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { feeLegPayments, feeLegs, requests } from '../db/schema.ts';
import { formatAmount, parseAmount } from '../payments/amounts.ts';
import {
  mintRequestId,
  mintSalt,
  paymentReference,
  referenceTopic,
} from '../payments/references.ts';
import { USD_CAP_DECIMALS } from './fee-values.ts';
import { baseUnitsOfUsd } from './plan-amount.ts';

/**
 * A payment's fee legs (docs/guides/fees.md, "Fee legs"): one per fee of the plan its link
 * captured, paid on chain after the payee's leg as a fee-proxy payment to the fee's recipient,
 * with a payment reference of its own. Payer-borne fees are paid on top of the gross;
 * payee-borne fees come out of the payee's leg, which then carries the gross less them.
 */

export type FeeLegRow = typeof feeLegs.$inferSelect;

/** A leg to write: a plan's fee in base units of the payment's currency, to its recipient. */
export interface PlannedFeeLeg {
  readonly position: number;
  readonly type: PlanFee['type'];
  readonly label: string;
  readonly feeBearer: PlanFeeBearer;
  readonly recipient: string;
  readonly amount: bigint;
}

/** A plan's USD amount (8 decimals at most) as base units of the stablecoin it is paid in. */
export function planBaseUnits(usd: string, currency: Currency): bigint {
  const parsed = parseAmount(usd, USD_CAP_DECIMALS);
  if (!parsed.ok) return 0n;
  return baseUnitsOfUsd(parsed.value, currency.decimals);
}

/**
 * The legs of a plan on the payment's network: each fee worth at least one base unit, to the
 * recipient its config names for that network kind (the plan leaves out a fee without one).
 */
export function plannedFeeLegs(plan: FeePlan | null, currency: Currency): PlannedFeeLeg[] {
  if (plan === null) return [];
  const tron = currency.type === 'TRC20';
  return plan.fees.flatMap((fee, position) => {
    const recipient = tron ? fee.destinationRef.tronAddress : fee.destinationRef.evmAddress;
    const amount = planBaseUnits(fee.calculatedAmountUsd, currency);
    if (recipient === undefined || amount <= 0n) return [];
    return [
      { position, type: fee.type, label: fee.label, feeBearer: fee.feeBearer, recipient, amount },
    ];
  });
}

/** What the payee's leg is short of the gross: the payee-borne legs. */
export function payeeBorneTotal(legs: readonly PlannedFeeLeg[]): bigint {
  return legs.reduce((sum, leg) => (leg.feeBearer === 'payee' ? sum + leg.amount : sum), 0n);
}

/** Writes the legs of the payee's request (its public id), each with a fresh reference. */
export async function insertFeeLegs(
  db: Database,
  request: { readonly requestId: string; readonly network: string; readonly currency: string },
  legs: readonly PlannedFeeLeg[],
): Promise<void> {
  if (legs.length === 0) return;
  const requestRowId = sql<string>`(select ${requests.id} from ${requests} where ${requests.requestId} = ${request.requestId})`;
  await db.insert(feeLegs).values(
    legs.map((leg) => {
      const feeRequestId = mintRequestId();
      const salt = mintSalt();
      const reference = paymentReference(feeRequestId, salt, leg.recipient);
      return {
        requestRowId,
        position: leg.position,
        feeRequestId,
        type: leg.type,
        label: leg.label,
        feeBearer: leg.feeBearer,
        network: request.network,
        currency: request.currency,
        recipient: leg.recipient,
        amount: leg.amount,
        salt,
        paymentReference: reference,
        referenceTopic: referenceTopic(reference),
      };
    }),
  );
}

/** A leg with what detection saw paid on it. */
export interface FeeLegState extends FeeLegRow {
  readonly paidAmount: bigint;
  /** The latest transaction that paid it; null while nothing has. */
  readonly txHash: string | null;
  readonly paidAt: Date | null;
}

export const isFeeLegPaid = (leg: FeeLegState): boolean => leg.paidAmount >= leg.amount;

/** The legs of these payee requests (row ids), in plan order, with what was paid on each. */
export async function feeLegsOf(
  db: Database,
  requestRowIds: readonly string[],
): Promise<Map<string, FeeLegState[]>> {
  const byRequest = new Map<string, FeeLegState[]>();
  if (requestRowIds.length === 0) return byRequest;
  const rows = await db
    .select({
      leg: feeLegs,
      paidAmount: sql<string>`coalesce(sum(${feeLegPayments.amount}), 0)`,
      txHash: sql<
        string | null
      >`(array_agg(${feeLegPayments.txHash} order by ${feeLegPayments.blockNumber} desc, ${feeLegPayments.logIndex} desc))[1]`,
      paidAt: sql<string | Date | null>`max(${feeLegPayments.timestamp})`,
    })
    .from(feeLegs)
    .leftJoin(feeLegPayments, eq(feeLegPayments.feeLegId, feeLegs.id))
    .where(inArray(feeLegs.requestRowId, [...new Set(requestRowIds)]))
    .groupBy(feeLegs.id)
    .orderBy(asc(feeLegs.requestRowId), asc(feeLegs.position));
  for (const { leg, paidAmount, txHash, paidAt } of rows) {
    const list = byRequest.get(leg.requestRowId) ?? [];
    list.push({
      ...leg,
      paidAmount: BigInt(paidAmount),
      txHash,
      paidAt: paidAt === null ? null : new Date(paidAt),
    });
    byRequest.set(leg.requestRowId, list);
  }
  return byRequest;
}

/** The legs of a network whose reference topics are among `topics`. */
export async function feeLegsByReferenceTopics(
  db: Database,
  network: string,
  topics: readonly string[],
): Promise<FeeLegRow[]> {
  if (topics.length === 0) return [];
  return db
    .select()
    .from(feeLegs)
    .where(and(eq(feeLegs.network, network), inArray(feeLegs.referenceTopic, [...topics])));
}

/** A fee leg as answers and webhooks show it: what it is, who bore it, whether it was paid. */
export interface FeeLegView {
  readonly feeComponentId: string;
  readonly type: FeeLegRow['type'];
  readonly label: string;
  readonly feeBearer: PlanFeeBearer;
  readonly amount: string;
  readonly paidAmount: string;
  readonly currency: string;
  readonly network: string;
  readonly recipient: string;
  readonly paymentReference: string;
  readonly status: 'paid' | 'outstanding';
  readonly txHash: string | null;
  readonly paidAt: string | null;
}

function feeLegView(leg: FeeLegState, decimals: number): FeeLegView {
  return {
    feeComponentId: leg.id,
    type: leg.type,
    label: leg.label,
    feeBearer: leg.feeBearer,
    amount: formatAmount(leg.amount, decimals),
    paidAmount: formatAmount(leg.paidAmount, decimals),
    currency: leg.currency,
    network: leg.network,
    recipient: leg.recipient,
    paymentReference: `0x${leg.paymentReference}`,
    status: isFeeLegPaid(leg) ? 'paid' : 'outstanding',
    txHash: leg.txHash,
    paidAt: leg.paidAt?.toISOString() ?? null,
  };
}

/** The views of the legs of these payee requests (row ids), in plan order. */
export async function feeLegViewsOf(
  db: Database,
  chains: ChainRegistry,
  requestRowIds: readonly string[],
): Promise<Map<string, FeeLegView[]>> {
  const legs = await feeLegsOf(db, requestRowIds);
  return new Map(
    [...legs].map(([id, list]) => [
      id,
      list.map((leg) => feeLegView(leg, chains.currency(leg.currency)?.decimals ?? 0)),
    ]),
  );
}
