import type { Logger } from 'pino';
import type { Address, Hex, PrivateKeyAccount, PublicClient } from 'viem';
import type { Clock } from '../../base/clock.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { broadcast, signCall, transactionStatus, waitForOutcome } from '../../payments/sender.ts';
import {
  type Claim,
  recordFailure,
  recordSent,
  recordSuccess,
  releaseClaim,
} from './executions.ts';
import { isIndexPaid, payerFunds, type Revert, scheduleDigest, simulate } from './on-chain.ts';
import type { RelayerHealthTracker } from './relayer-health.ts';
import { triggerRecurringPayment } from './trigger.ts';
import { type Verdict, verdictOf } from './verdict.ts';

/**
 * Pays one claimed index of a recurring payout with `triggerRecurringPayment`, signed by the
 * relayer, following the data-layer rules of `executions.ts`:
 *
 * 1. A hash handed over by an executor that lost its lease is looked up first: mined and
 *    successful is the index paid; still pending is waited for (then left to the next lease);
 *    reverted or unknown (never broadcast, or dropped) goes on to step 2.
 * 2. The contract's bitmap (`triggeredPaymentsBitmap`) answers whether the index is paid
 *    already; if so it is a success, without sending anything.
 * 3. The trigger is simulated (`eth_call` from the relayer): a revert becomes a verdict
 *    (`verdict.ts`) without spending gas: a failure pauses the schedule, a retry gives the
 *    index back.
 * 4. The trigger is signed locally, its hash recorded (`recordSent`), then broadcast; the
 *    receipt decides. A reverted trigger whose index the bitmap shows paid is a success (the
 *    contract refuses a second payment of an index, with `__AlreadyPaid`, or under strict order
 *    `__PaymentOutOfOrder`), so an index is paid at most once even when a lost executor's
 *    transaction lands after all.
 */

/** How long a broadcast trigger's receipt is waited for before the lease decides. */
const RECEIPT_TIMEOUT_MS = 120_000;
const RECEIPT_POLL_MS = 1_000;

type OutcomeKind =
  /** Paid (now, or found paid). */
  | 'succeeded'
  /** Refused for the payer or the permit: schedule paused, `payment.failed` queued. */
  | 'failed'
  /** Given back untouched, to be tried again (chain clock, RPC, relayer funds). */
  | 'retry'
  /** A transaction is out and unresolved: the next claim after the lease looks it up. */
  | 'pending'
  /** The claim was taken over meanwhile: nothing sent. */
  | 'lost';

export interface Outcome {
  readonly scheduleId: string;
  readonly index: number;
  readonly kind: OutcomeKind;
  readonly txHash: Hex | null;
  readonly reason?: string;
}

/** What identifies a claim in `executions.ts`'s writes. */
export function claimKey(claim: Claim) {
  return {
    recurringPayoutId: claim.schedule.id,
    index: claim.index,
    claimToken: claim.claimToken,
  };
}

export function createClaimExecutor(deps: {
  db: Database;
  chains: ChainRegistry;
  client: PublicClient;
  clock: Clock;
  /** The executor's logger (it names the network). */
  logger: Logger;
  relayer: PrivateKeyAccount;
  relayerHealth: RelayerHealthTracker;
  receiptTimeoutMs?: number;
}): (claim: Claim) => Promise<Outcome> {
  const { db, client, relayer, relayerHealth } = deps;
  const log = deps.logger;
  const receiptTimeoutMs = deps.receiptTimeoutMs ?? RECEIPT_TIMEOUT_MS;

  const decimalsOf = (claim: Claim) => deps.chains.currency(claim.schedule.currency)?.decimals ?? 0;

  const outcome = (claim: Claim, kind: OutcomeKind, txHash: Hex | null, reason?: string) => {
    const fields = { scheduleId: claim.schedule.id, index: claim.index, txHash, reason };
    if (kind === 'failed') log.warn(fields, 'recurring payment failed; schedule paused');
    else if (kind === 'succeeded') log.info(fields, 'recurring payment executed');
    else log.warn(fields, `recurring payment ${kind}`);
    return {
      scheduleId: claim.schedule.id,
      index: claim.index,
      kind,
      txHash,
      ...(reason !== undefined && { reason }),
    };
  };

  const succeed = async (claim: Claim, txHash: Hex | null): Promise<Outcome> => {
    await recordSuccess(db, { ...claimKey(claim), txHash, now: deps.clock.now() });
    return outcome(claim, 'succeeded', txHash);
  };

  /** Applies a verdict; `sent` says a transaction of this claim is recorded (no release then). */
  const apply = async (
    claim: Claim,
    verdict: Verdict,
    txHash: Hex | null,
    sent: boolean,
  ): Promise<Outcome> => {
    switch (verdict.kind) {
      case 'paid':
        return succeed(claim, txHash);
      case 'failed': {
        const now = deps.clock.now();
        const recorded = await recordFailure(db, {
          ...claimKey(claim),
          reason: verdict.reason,
          now,
        });
        return outcome(claim, recorded ? 'failed' : 'lost', txHash, verdict.reason);
      }
      case 'retry':
        // A reverted transaction stays recorded: the next claim after the lease starts over.
        if (!sent) await releaseClaim(db, claimKey(claim));
        return outcome(claim, sent ? 'pending' : 'retry', txHash, verdict.reason);
    }
  };

  const judge = async (claim: Claim, revert: Revert) =>
    verdictOf(revert, claim.schedule, await payerFunds(client, claim), decimalsOf(claim));

  const execute = async (claim: Claim): Promise<Outcome> => {
    const proxy = claim.schedule.proxy as Address;
    const digest = scheduleDigest(claim);
    const tx = triggerRecurringPayment({
      chainId: claim.schedule.chainId,
      proxy,
      permit: claim.permit.message,
      signature: claim.signature,
      index: claim.index,
      paymentReference: claim.request.paymentReference,
    });

    // 1. What an executor that lost its lease sent may have landed, or may still.
    const previous = claim.previousTxHash;
    if (previous !== null) {
      let status = await transactionStatus(client, previous);
      if (status === 'pending') {
        status = await waitForOutcome(client, previous, {
          timeoutMs: receiptTimeoutMs,
          pollMs: RECEIPT_POLL_MS,
        });
      }
      if (status === 'success') return succeed(claim, previous);
      if (status === 'pending') return outcome(claim, 'pending', previous, 'still pending');
    }

    // 2. The contract's own record.
    if (await isIndexPaid(client, proxy, digest, claim.index)) return succeed(claim, null);

    // 3. A refusal costs nothing when found by a call.
    const revert = await simulate(client, relayer.address, tx);
    if (revert !== null) return apply(claim, await judge(claim, revert), null, false);

    // 4. Sign, record, send, and let the receipt decide.
    const signed = await signCall(client, relayer, tx);
    const balance = await client.getBalance({ address: relayer.address });
    if (balance < signed.maxCost) {
      relayerHealth.short(balance, signed.maxCost);
      await releaseClaim(db, claimKey(claim));
      return outcome(claim, 'retry', null, 'the relayer cannot pay the gas');
    }
    const now = deps.clock.now();
    if (!(await recordSent(db, { ...claimKey(claim), txHash: signed.hash, now }))) {
      return outcome(claim, 'lost', null);
    }
    let refused = false;
    try {
      await broadcast(client, signed.serialized);
    } catch (error) {
      // The node may have taken it anyway (some answer a reverting transaction with an error
      // and mine it): the receipt says, at once, and otherwise the lease hands it on.
      refused = true;
      log.warn({ err: error, txHash: signed.hash }, 'recurring trigger broadcast failed');
    }
    const status = refused
      ? await transactionStatus(client, signed.hash)
      : await waitForOutcome(client, signed.hash, {
          timeoutMs: receiptTimeoutMs,
          pollMs: RECEIPT_POLL_MS,
        });
    switch (status) {
      case 'success':
        return succeed(claim, signed.hash);
      case 'pending':
      case 'unknown':
        return outcome(claim, 'pending', signed.hash, `transaction ${status}`);
      case 'reverted': {
        if (await isIndexPaid(client, proxy, digest, claim.index)) return succeed(claim, null);
        const again = await simulate(client, relayer.address, tx);
        const verdict: Verdict = again
          ? await judge(claim, again)
          : { kind: 'failed', reason: `The payment transaction ${signed.hash} reverted` };
        return apply(claim, verdict, signed.hash, true);
      }
    }
  };

  return execute;
}
