import type { Address, Hex, PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { AppError } from '../base/errors.ts';
import { type CommerceActionKind, commerceActions } from '../db/schema.ts';
import type { CallerScope } from '../http/principal.ts';
import { erc20Abi } from '../payments/abis.ts';
import type { EvmTransaction } from '../payments/transactions.ts';
import { broadcast, signTrigger, waitForOutcome } from '../payouts/recurring/on-chain.ts';
import { approveWrapperTransaction } from './calldata/approve-wrapper.ts';
import type { CommerceDeps } from './deps.ts';
import { serverSigns } from './operator.ts';
import type { CommercePaymentRow } from './payment.ts';
import { checkSignedTransaction } from './signed.ts';
import type { CommerceState } from './state.ts';
import {
  findCommercePayment,
  type LoadedPayment,
  loadState,
  lockCommercePayment,
  markAction,
} from './store.ts';

/**
 * The execute operations (`/authorize`, `/capture`, `/void`, `/refund`): the call is checked,
 * then reserved as a pending action under the payment's row lock (two racing captures of the
 * last amount: the second sees the first's reservation and is refused), then sent — signed by
 * the server's operator key, or the operator's own signed transaction broadcast as it is — and
 * its receipt awaited for a bounded time. A send that fails frees the reservation.
 */

const RECEIPT_POLL_MS = 250;

export interface ActionPlan {
  readonly kind: CommerceActionKind;
  /** The call, built from the payment and the body (not from the state). */
  transaction(payment: CommercePaymentRow): EvmTransaction;
  /** The rules of the operation against the state under the lock; returns the amount reserved. */
  check(loaded: LoadedPayment): bigint;
  readonly feeBps?: number;
  readonly feeReceiver?: string;
  readonly reason?: string;
  /**
   * What the chain must show before the call is sent (read with no lock held), else a 4xx:
   * an authorization's pre-approval by the buyer.
   */
  ready?(payment: CommercePaymentRow): Promise<void>;
  /** Refunds: the server's operator approves the wrapper for the amount first, when short. */
  readonly approveFirst?: boolean;
  readonly signedTransaction: string | undefined;
}

export interface ActionResult {
  readonly payment: CommercePaymentRow;
  readonly transactionHash: Hex;
  readonly amount: bigint;
  readonly state: CommerceState;
}

export async function executeAction(
  deps: CommerceDeps,
  scope: CallerScope,
  requestId: string,
  plan: ActionPlan,
): Promise<ActionResult> {
  // Everything that can be checked without the lock first: nothing is reserved for a call that
  // could never be sent.
  const found = await deps.db.transaction(async (tx) => {
    const payment = await lockCommercePayment(tx, scope, requestId);
    plan.check(await loadState(tx, payment, await deps.chainTime.now(payment.network)));
    return payment;
  });
  const expected = plan.transaction(found);
  const signer = serverSigns(found.operator, deps.operator(found.network));
  let signed: { serialized: Hex; hash: Hex } | null = null;
  if (plan.signedTransaction !== undefined) {
    signed = await checkSignedTransaction(plan.signedTransaction, expected, found.operator);
  } else if (signer === null) {
    throw new AppError(
      'signed_transaction_required',
      `signedTransaction is required: this server does not hold the key of the payment's operator ${found.operator}; sign the /calldata answer with it`,
    );
  }
  await plan.ready?.(found);
  const client = deps.clients.evm(found.network);
  // Read before the lock is taken: no chain call while it is held.
  const checkedAt = await deps.chainTime.now(found.network);

  const { payment, actionId, amount } = await deps.db.transaction(async (tx) => {
    const locked = await lockCommercePayment(tx, scope, requestId);
    const reserved = plan.check(await loadState(tx, locked, checkedAt));
    const [action] = await tx
      .insert(commerceActions)
      .values({
        commercePaymentId: locked.id,
        kind: plan.kind,
        amount: reserved,
        feeBps: plan.feeBps ?? null,
        feeReceiver: plan.feeReceiver ?? null,
        reason: plan.reason ?? null,
        status: 'pending',
        createdAt: deps.clock.now(),
      })
      .returning({ id: commerceActions.id });
    if (!action) throw new Error('commerce action insert returned no row');
    return { payment: locked, actionId: action.id, amount: reserved };
  });

  const failed = async (reason: string, cause: unknown, txHash: Hex | null) => {
    await markAction(deps.db, actionId, {
      status: 'failed',
      txHash,
      failureReason: reason,
      endedAt: deps.clock.now(),
    });
    return new AppError(
      'commerce_transaction_failed',
      `The ${plan.kind} transaction failed; its amount is free again: ${reason}`,
      { cause },
    );
  };
  const firstLine = (error: unknown) =>
    (error instanceof Error ? error.message.split('\n')[0] : String(error)) || 'send failed';

  let hash: Hex | null = signed?.hash ?? null;
  try {
    if (signed) {
      await markAction(deps.db, actionId, { status: 'sent', txHash: signed.hash });
      await broadcast(client, signed.serialized);
    } else if (signer) {
      hash = await deps.sends.run(payment.network, async () => {
        if (plan.approveFirst) await approveIfShort(deps, client, signer, payment, amount);
        const trigger = await signTrigger(client, signer, expected);
        await markAction(deps.db, actionId, { status: 'sent', txHash: trigger.hash });
        await broadcast(client, trigger.serialized);
        return trigger.hash;
      });
    }
    if (hash === null) throw new Error('no transaction to send');
  } catch (error) {
    throw await failed(firstLine(error), error, hash);
  }
  // Broadcast: from here on the transaction may land whatever we hear, so only a revert frees
  // its amount; a receipt not read in time (or an RPC that fails meanwhile) leaves it in flight,
  // for detection to settle.
  const outcome = await waitForOutcome(client, hash, {
    timeoutMs: deps.receiptTimeoutMs,
    pollMs: RECEIPT_POLL_MS,
  }).catch(() => 'pending' as const);
  if (outcome === 'reverted') throw await failed(`transaction ${hash} reverted`, null, hash);
  if (outcome === 'success') {
    await markAction(deps.db, actionId, {
      status: 'confirmed',
      txHash: hash,
      endedAt: deps.clock.now(),
    });
  }
  const { state } = await loadState(deps.db, payment, await deps.chainTime.now(payment.network));
  return { payment, transactionHash: hash, amount, state };
}

/** The server's operator approves the wrapper for a refund's amount when its allowance is short. */
async function approveIfShort(
  deps: CommerceDeps,
  client: PublicClient,
  signer: PrivateKeyAccount,
  payment: CommercePaymentRow,
  amount: bigint,
): Promise<void> {
  const allowance = await client.readContract({
    address: payment.tokenAddress as Address,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [signer.address, payment.wrapper as Address],
  });
  if (allowance >= amount) return;
  const approval = await signTrigger(client, signer, approveWrapperTransaction(payment, amount));
  await broadcast(client, approval.serialized);
  const outcome = await waitForOutcome(client, approval.hash, {
    timeoutMs: deps.receiptTimeoutMs,
    pollMs: RECEIPT_POLL_MS,
  });
  if (outcome !== 'success')
    throw new Error(`the approval of the wrapper ${approval.hash} did not succeed (${outcome})`);
}

/** A `/calldata` operation: the same rules as the execute operation, and the call, unsent. */
export async function planCalldata(
  deps: Pick<CommerceDeps, 'db' | 'chainTime'>,
  scope: CallerScope,
  requestId: string,
  plan: ActionPlan,
): Promise<{ payment: CommercePaymentRow; transaction: EvmTransaction }> {
  const payment = await findCommercePayment(deps.db, scope, requestId);
  plan.check(await loadState(deps.db, payment, await deps.chainTime.now(payment.network)));
  return { payment, transaction: plan.transaction(payment) };
}
