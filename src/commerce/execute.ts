import { type Address, type Hex, isHex, keccak256, type PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { AppError } from '../base/errors.ts';
import { type CommerceActionKind, commerceActions } from '../db/schema.ts';
import type { CallerScope } from '../http/principal.ts';
import { erc20Abi } from '../payments/abis.ts';
import {
  type BroadcastOutcome,
  broadcast,
  broadcastOutcome,
  firstLine,
  signCall,
  waitForOutcome,
} from '../payments/sender.ts';
import type { EvmTransaction } from '../payments/transactions.ts';
import { approveWrapperTransaction } from './calldata/approve-wrapper.ts';
import type { CommerceDeps } from './deps.ts';
import { serverSigns } from './operator.ts';
import type { CommercePaymentRow } from './payment.ts';
import { contractRefusal } from './reverts.ts';
import { sendKey } from './send-queue.ts';
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
 * its receipt awaited for a bounded time. A send refused for good (the contract at its gas
 * estimate, the node at its broadcast) frees the reservation; one that may still be mined (the
 * node did not answer its broadcast clearly, or its receipt in time) is answered in flight and
 * ended by detection or the reconciler (reconciler.ts).
 */

const RECEIPT_POLL_MS = 250;
/** A refund approves the wrapper at most this many times before it gives up (another refund took the allowance). */
const APPROVAL_ROUNDS = 3;

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
  /**
   * Refunds: the operator's own tokens pay them (the escrow's refund collector pulls them from
   * it), so the server never signs one with its shared key (`refusedWithSharedKey`), and the
   * server's development operator approves the wrapper first when short.
   */
  readonly fundedByOperator?: boolean;
  readonly signedTransaction: string | undefined;
}

export interface ActionResult {
  readonly payment: CommercePaymentRow;
  readonly transactionHash: Hex;
  readonly amount: bigint;
  readonly state: CommerceState;
}

/**
 * A refund is paid from its operator's wallet (the escrow's refund collector pulls it), so one
 * the server would sign with its shared key (`COMMERCE_OPERATOR_KEY`) would be paid by the
 * platform, whoever captured the funds: refused before anything is reserved, signed or sent.
 * The key's holder may still refund by signing `/refund/calldata` itself (`signedTransaction`):
 * no caller of the API can. The sandbox's development operator holds nothing of value and keeps
 * refunding.
 */
function refusedWithSharedKey(deps: CommerceDeps, payment: CommercePaymentRow, plan: ActionPlan) {
  if (!plan.fundedByOperator || plan.signedTransaction !== undefined) return;
  if (!deps.sharedOperatorKey) return;
  if (serverSigns(payment.operator, deps.operator(payment.network)) === null) return;
  throw new AppError(
    'commerce_refund_unfunded',
    `The server does not refund with its shared operator key: a refund is paid from the operator's wallet (${payment.operator}). Its key holder signs the /refund/calldata transactions and sends signedTransaction; a merchant refunds from its own operator (the client ID's operatorWalletAddress)`,
  );
}

/**
 * The answer to a `signedTransaction` the payment already has a live action for (its hash, the
 * keccak of the bytes, matches: the same transaction, checked when it first came): the same
 * answer as the first request's, the payment as it is now, nothing reserved or sent again. A
 * client retrying, or two racing, never reserve one transaction twice. One that failed may be
 * sent again (the unique index on the transaction skips failed actions, like this).
 */
function earlierAction(
  loaded: LoadedPayment,
  signedTransaction: string | undefined,
): ActionResult | null {
  if (signedTransaction === undefined || !isHex(signedTransaction)) return null;
  const hash = keccak256(signedTransaction);
  const action = loaded.actions.find(
    (a) => a.status !== 'failed' && a.txHash?.toLowerCase() === hash,
  );
  if (!action) return null;
  return {
    payment: loaded.payment,
    transactionHash: hash,
    amount: action.amount,
    state: loaded.state,
  };
}

export async function executeAction(
  deps: CommerceDeps,
  scope: CallerScope,
  requestId: string,
  plan: ActionPlan,
): Promise<ActionResult> {
  // Everything that can be checked without the lock first: nothing is reserved for a call that
  // could never be sent.
  const first = await deps.db.transaction(async (tx) => {
    const payment = await lockCommercePayment(tx, scope, requestId);
    const loaded = await loadState(tx, payment, await deps.chainTime.now(payment.network));
    const earlier = earlierAction(loaded, plan.signedTransaction);
    if (earlier) return { payment, earlier };
    refusedWithSharedKey(deps, payment, plan);
    plan.check(loaded);
    return { payment, earlier: null };
  });
  if (first.earlier) return first.earlier;
  const found = first.payment;
  const expected = plan.transaction(found);
  const signer = serverSigns(found.operator, deps.operator(found.network));
  let signed: { serialized: Hex; hash: Hex; nonce: number } | null = null;
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

  const reservation = await deps.db.transaction(async (tx) => {
    const locked = await lockCommercePayment(tx, scope, requestId);
    const loaded = await loadState(tx, locked, checkedAt);
    const earlier = earlierAction(loaded, plan.signedTransaction);
    if (earlier) return { earlier };
    const reserved = plan.check(loaded);
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
        // The operator's own transaction is known before it is sent: a second request with it
        // finds it here (`earlierAction`).
        txHash: signed?.hash ?? null,
        nonce: signed?.nonce ?? null,
        createdAt: deps.clock.now(),
      })
      .returning({ id: commerceActions.id });
    if (!action) throw new Error('commerce action insert returned no row');
    return { earlier: null, payment: locked, actionId: action.id, amount: reserved };
  });
  if (reservation.earlier) return reservation.earlier;
  const { payment, actionId, amount } = reservation;

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
  /**
   * What answers a send that failed before its broadcast (nothing reached the chain): the
   * action failed, and a contract's refusal at the gas estimate named. One judged by the
   * chain's clock past an expiry the server's reading (chain-time.ts, cached for seconds) had
   * not reached answers the operation's own 409, as if the server had seen it.
   */
  const refusedBeforeSending = async (error: unknown, txHash: Hex | null) => {
    const refusal = contractRefusal(error);
    const failure = await failed(
      refusal ? `the contract refused it: ${refusal.text}` : firstLine(error),
      error,
      txHash,
    );
    if (refusal?.chainTime) plan.check(await loadState(deps.db, payment, refusal.chainTime));
    return failure;
  };

  // Recorded, with the signed bytes, before the broadcast: a crash after it leaves the
  // transaction for the reconciler, which broadcasts it again while the node does not know it.
  // `out` holds the broadcast's outcome the moment it is known: whatever fails after it (the
  // send queue's lock ending) cannot take back what was sent.
  const out: { hash: Hex | null; sent: BroadcastOutcome | null } = {
    hash: signed?.hash ?? null,
    sent: null,
  };
  const send = async (call: { hash: Hex; nonce: number; serialized: Hex }) => {
    out.hash = call.hash;
    const moved = await markAction(deps.db, actionId, {
      status: 'sent',
      txHash: call.hash,
      nonce: call.nonce,
      rawTransaction: call.serialized,
    });
    if (!moved) throw new Error('the action was ended while it waited to be sent');
    out.sent = await broadcastOutcome(client, call.serialized);
  };
  try {
    if (signed) await send(signed);
    else if (signer) {
      if (plan.fundedByOperator) await approveIfShort(deps, client, signer, payment, amount);
      await deps.sends.run(sendKey(payment.network, signer.address), async () =>
        send(await signCall(client, signer, expected)),
      );
    }
  } catch (error) {
    if (out.sent === null) throw await refusedBeforeSending(error, out.hash);
  }
  const { hash, sent } = out;
  if (hash === null || sent === null) throw new Error('no transaction to send');
  if (sent.kind === 'refused') throw await failed(sent.reason, null, hash);
  // Broadcast, or perhaps (the node did not answer clearly: a timeout, a 5xx, `already known`):
  // from here on the transaction may land whatever we hear, so only a revert frees its amount;
  // a receipt not read in time (or an RPC that fails meanwhile) leaves it in flight, for
  // detection and the reconciler to settle.
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

/**
 * The server's operator approves the wrapper for a refund's amount when its allowance is short.
 * Only the signing and broadcast of the approval hold the operator's send queue; its receipt is
 * awaited outside it, and the allowance read again in case another refund used it meanwhile.
 */
async function approveIfShort(
  deps: CommerceDeps,
  client: PublicClient,
  signer: PrivateKeyAccount,
  payment: CommercePaymentRow,
  amount: bigint,
): Promise<void> {
  for (let round = 0; round < APPROVAL_ROUNDS; round++) {
    const allowance = await client.readContract({
      address: payment.tokenAddress as Address,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [signer.address, payment.wrapper as Address],
    });
    if (allowance >= amount) return;
    const approval = await deps.sends.run(sendKey(payment.network, signer.address), async () => {
      const call = await signCall(client, signer, approveWrapperTransaction(payment, amount));
      await broadcast(client, call.serialized);
      return call.hash;
    });
    const outcome = await waitForOutcome(client, approval, {
      timeoutMs: deps.receiptTimeoutMs,
      pollMs: RECEIPT_POLL_MS,
    });
    if (outcome !== 'success')
      throw new Error(`the approval of the wrapper ${approval} did not succeed (${outcome})`);
  }
  throw new Error('the approval of the wrapper was used by other refunds meanwhile; try again');
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
