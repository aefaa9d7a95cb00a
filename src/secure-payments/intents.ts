import { eq } from 'drizzle-orm';
import { type FieldError, ValidationError } from '../base/errors.ts';
import { paymentIntents, securePayments } from '../db/schema.ts';
import type { LinkScope } from '../http/principal.ts';
import { recordBridgeIntent } from './bridge-intent.ts';
import {
  checkAddress,
  checkChain,
  checkToken,
  details,
  type IntentBody,
  type IntentDeps,
  isCrossChain,
  networkOf,
} from './intent-body.ts';
import { assertPayable, type Link, loadLink } from './links.ts';
import type { IntentRow } from './tracked-intent.ts';

/**
 * What a payer says it did to pay a link (api-facts §2.8): `POST /{token}/intent` records a
 * transaction it sent (`txHash`: detection confirms it as any payment) or a Safe transaction its
 * owners are signing (`safeTxHash`: the link answers 423 until tracking ends, at the deadline
 * at the latest); `POST /{token}/multicall-intent` (and the 0.13.0 form of `/intent` carrying
 * `userOpHash`) keeps a smart account's receipt of a multicall parent for audit.
 */

/** `POST /{token}/intent`: a single payer's transaction, or its Safe's, or (0.13.0) a receipt. */
export async function recordIntent(
  deps: IntentDeps,
  scope: LinkScope,
  token: string,
  body: IntentBody,
) {
  if (body.userOpHash !== undefined || body.transactionIndices !== undefined) {
    return receiptAnswer(await recordMulticallIntent(deps, scope, token, body, true));
  }
  const link = await loadLink(deps.db, deps.clock, scope, token);
  await assertPayable(deps, link);
  if (body.txHash !== undefined && body.safeTxHash === undefined && isCrossChain(link, body)) {
    return recordBridgeIntent(deps, link, body);
  }
  const now = deps.clock.now();
  const errors: FieldError[] = [];
  const network = checkChain(link, body, errors);
  if ((body.txHash === undefined) === (body.safeTxHash === undefined)) {
    errors.push({ field: 'txHash', message: 'exactly one of txHash and safeTxHash is required' });
  }
  checkToken(link, body, errors);
  if (body.safePaymentDeadline !== undefined) {
    if (body.safeTxHash === undefined) {
      errors.push({ field: 'safePaymentDeadline', message: 'is only taken with safeTxHash' });
    } else if (body.safePaymentDeadline * 1000 <= now.getTime()) {
      errors.push({ field: 'safePaymentDeadline', message: 'has passed' });
    }
  }
  checkAddress('payerAddress', body.payerAddress, errors);
  checkAddress('payerEoaAddress', body.payerEoaAddress, errors);
  if (errors.length > 0) throw new ValidationError(errors);

  const safe = body.safeTxHash !== undefined;
  // The link's expiry, as /pay's `safePaymentDeadline` announced it; a sooner one if asked.
  const expiry = link.row.expiresAt.getTime();
  const deadline = safe
    ? new Date(
        body.safePaymentDeadline !== undefined
          ? Math.min(body.safePaymentDeadline * 1000, expiry)
          : expiry,
      )
    : null;
  const intent = await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(paymentIntents)
      .values({
        securePaymentId: link.row.id,
        kind: safe ? 'safe' : 'tx',
        status: safe ? 'tracking' : 'recorded',
        network,
        txHash: body.txHash?.toLowerCase() ?? null,
        safeTxHash: body.safeTxHash?.toLowerCase() ?? null,
        safePaymentDeadline: deadline,
        payerAddress: body.payerAddress ?? null,
        payerEoaAddress: body.payerEoaAddress ?? null,
        details: details(body),
        createdAt: now,
      })
      // A Safe transaction tracked already (one sent at the same moment): the link is locked.
      .onConflictDoNothing()
      .returning();
    if (row && deadline !== null) {
      await tx
        .update(securePayments)
        .set({ trackingUntil: deadline })
        .where(eq(securePayments.id, link.row.id));
    }
    return row;
  });
  if (!intent) throw await lockedAgain(deps, scope, token);
  const [first] = link.requests;
  return {
    intentId: intent.id,
    paymentReference: first ? `0x${first.paymentReference}` : '',
    ...(intent.txHash !== null && { txHash: intent.txHash }),
    ...(intent.safeTxHash !== null && { safeTxHash: intent.safeTxHash }),
    ...(deadline !== null && { safePaymentDeadline: Math.floor(deadline.getTime() / 1000) }),
    isListening: true,
    ...(intent.payerAddress !== null && { payerAddress: intent.payerAddress }),
  };
}

/** The 423 a link answers once another request's Safe transaction holds it. */
async function lockedAgain(deps: IntentDeps, scope: LinkScope, token: string): Promise<Error> {
  const link = await loadLink(deps.db, deps.clock, scope, token);
  try {
    await assertPayable(deps, link);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
  return new Error('a tracked Safe intent conflicted, yet the link is not locked');
}

/**
 * `POST /{token}/multicall-intent`: a smart account's receipt of a multicall parent, kept for
 * audit and never polled (detection sees the legs' payments on chain).
 */
export async function recordMulticallIntent(
  deps: IntentDeps,
  scope: LinkScope,
  token: string,
  body: IntentBody,
  legacy = false,
): Promise<{ row: IntentRow; link: Link; body: IntentBody }> {
  const link = await loadLink(deps.db, deps.clock, scope, token);
  if (!link.children) {
    throw new ValidationError([
      { field: 'token', message: 'is not a multicall payout: record its payment with /intent' },
    ]);
  }
  await assertPayable(deps, link);
  const errors: FieldError[] = [];
  const network = crossChainParent(link)
    ? checkSourceChain(deps, body, errors)
    : checkChain(link, body, errors);
  const indices = body.transactionIndices ?? [];
  if (indices.length === 0) errors.push({ field: 'transactionIndices', message: 'is required' });
  const positions = new Set(link.children.map((child) => child.position));
  indices.forEach((index, i) => {
    if (!positions.has(index.childPosition)) {
      errors.push({
        field: `transactionIndices/${i}/childPosition`,
        message: `no child at position ${index.childPosition}`,
      });
    }
  });
  if (legacy) {
    if (body.smartAccountAddress === undefined)
      errors.push({ field: 'smartAccountAddress', message: 'is required' });
    if (body.userOpHash === undefined) errors.push({ field: 'userOpHash', message: 'is required' });
  }
  checkAddress('smartAccountAddress', body.smartAccountAddress, errors);
  checkAddress('payerEoaAddress', body.payerEoaAddress, errors);
  if (errors.length > 0) throw new ValidationError(errors);
  const [row] = await deps.db
    .insert(paymentIntents)
    .values({
      securePaymentId: link.row.id,
      kind: 'multicall',
      status: 'recorded',
      network,
      txHash: body.txHash?.toLowerCase() ?? null,
      safeTxHash: body.safeTxHash?.toLowerCase() ?? null,
      safePaymentDeadline:
        body.safePaymentDeadline === undefined ? null : new Date(body.safePaymentDeadline * 1000),
      payerEoaAddress: body.payerEoaAddress ?? null,
      smartAccountAddress: body.smartAccountAddress ?? null,
      userOpHash: body.userOpHash?.toLowerCase() ?? null,
      legCount: indices.length,
      details: details(body),
      createdAt: deps.clock.now(),
    })
    .returning();
  if (!row) throw new Error('payment intent insert returned no row');
  return { row, link, body };
}

/**
 * Whether a parent is paid from a source chain of the payer's choosing (`evm_cross_chain`,
 * asked for or implied by children on several networks): its receipt names that chain.
 */
function crossChainParent(link: Link): boolean {
  if (link.row.executionKind === 'evm_cross_chain') return true;
  return new Set((link.children ?? []).map((child) => child.row.network)).size > 1;
}

/** A cross-chain parent's bundle runs on any EVM network this server serves. */
function checkSourceChain(deps: IntentDeps, body: IntentBody, errors: FieldError[]): string {
  const network = networkOf(body.chain);
  const known = network === null ? undefined : deps.chains.network(network);
  if (known?.kind !== 'evm') {
    errors.push({
      field: 'chain',
      message: `${body.chain} is no EVM network this server serves (a cross-chain multicall is paid from one)`,
    });
  }
  return network ?? body.chain;
}

/** 0.13.0's answer to a receipt sent to `/intent`. */
function receiptAnswer({ row, link, body }: { row: IntentRow; link: Link; body: IntentBody }) {
  return {
    receiptId: row.id,
    multicallId: link.row.id,
    parentToken: link.row.token,
    ...(row.txHash !== null && { txHash: row.txHash }),
    ...(row.safeTxHash !== null && { safeTxHash: row.safeTxHash }),
    ...(row.safePaymentDeadline !== null && {
      safePaymentDeadline: Math.floor(row.safePaymentDeadline.getTime() / 1000),
    }),
    sourceChain: body.chain,
    smartAccountAddress: row.smartAccountAddress ?? '',
    userOpHash: row.userOpHash ?? '',
    transactionIndices: (body.transactionIndices ?? []).map((index) => ({
      childPosition: index.childPosition,
      transactionIndex: index.transactionIndex,
    })),
    isListening: false as const,
  };
}
