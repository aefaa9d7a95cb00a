import { inArray } from 'drizzle-orm';
import type { Clock } from '../../base/clock.ts';
import { AppError } from '../../base/errors.ts';
import { isNative } from '../../chains/currencies.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { multicallChildren, securePayments } from '../../db/schema.ts';
import { requestsOfLinks } from '../../requests/requests.ts';
import { insertLink } from '../../secure-payments/insert-link.ts';
import type { LinkCaller } from '../../secure-payments/link-caller.ts';
import {
  type BlockReason,
  type Child,
  childBlock,
  parentsWaitingOn,
} from '../../secure-payments/link-children.ts';
import type { LinkRow } from '../../secure-payments/link-row.ts';
import { draftLink, securePaymentUrl } from '../../secure-payments/mint-link.ts';
import { checkTotalsFit, distinctTokens } from '../links/grouping.ts';
import { BLOCK_MESSAGES, childContext, messageKeyOf, recoveryActionOf } from './reasons.ts';

/**
 * `POST /v2/secure-payments/multicall-payouts`: one parent link that pays several pending
 * single payout links of the caller's account in one go (api-facts §2.10). Every child is
 * checked, all failures are reported together in the `multicall_validation_failed` envelope,
 * and nothing is written unless every child is eligible. The children stay links of their
 * own; the parent only groups them, and its status follows theirs.
 */

export const EXECUTION_KINDS = ['evm_same_chain', 'evm_cross_chain', 'tron_batch'] as const;
export type ExecutionKind = (typeof EXECUTION_KINDS)[number];

/** The most children a cross-chain multicall may have (api-facts §15). */
export const CROSS_CHAIN_MAX_CHILDREN = 20;
export const MULTICALL_VALIDATION_MESSAGE = 'Multicall validation failed';

export interface MulticallInput {
  readonly childTokens: readonly string[];
  readonly requestedExecutionKind?: ExecutionKind | undefined;
}

export interface MulticallDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly chains: ChainRegistry;
  readonly payUrl: string;
  /** The most children a same-chain or Tron multicall may have (`MULTICALL_MAX_CHILDREN`). */
  readonly maxChildren: number;
}

interface Failure {
  readonly securePaymentToken: string;
  readonly reason: BlockReason | 'too_many_children';
  readonly message: string;
  readonly messageKey: string;
  readonly context: Record<string, unknown>;
  readonly recoveryAction: string;
}

export interface CreatedMulticall {
  readonly type: 'multicall';
  readonly token: string;
  readonly securePaymentUrl: string;
  readonly status: 'pending';
  readonly expiresAt: string;
  readonly createdAt: string;
  readonly items: {
    readonly securePaymentToken: string;
    readonly requestId: string;
    readonly position: number;
    readonly eligibility: 'eligible';
  }[];
}

function failure(
  token: string,
  position: number,
  reason: BlockReason,
  child: Pick<Child, 'row' | 'requests'> | null,
  now: Date,
): Failure {
  return {
    securePaymentToken: token,
    reason,
    message: BLOCK_MESSAGES[reason],
    messageKey: messageKeyOf(reason),
    context: childContext(token, position, child, now),
    recoveryAction: recoveryActionOf(reason),
  };
}

function validationFailed(failures: readonly Failure[], cap?: Record<string, unknown>): AppError {
  return new AppError('multicall_validation_failed', MULTICALL_VALIDATION_MESSAGE, {
    details: { failures, ...(cap && { cap }) },
  });
}

/** Refuses more children than `maximum`, naming the cap and how many to remove. */
function checkCap(count: number, maximum: number): void {
  if (count <= maximum) return;
  const cap = { type: 'child_count', maximum, actual: count, reduceBy: count - maximum };
  throw validationFailed(
    [
      {
        securePaymentToken: '*',
        reason: 'too_many_children',
        message: `A multicall payout takes at most ${maximum} children; remove ${count - maximum}`,
        messageKey: 'multicall.too_many_children',
        context: { maximum, actual: count },
        recoveryAction: 'recreate_reduced',
      },
    ],
    cap,
  );
}

export async function createMulticall(
  deps: MulticallDeps,
  caller: LinkCaller,
  input: MulticallInput,
): Promise<CreatedMulticall> {
  const tokens = distinctTokens(input.childTokens, 'childTokens');
  const crossChain = input.requestedExecutionKind === 'evm_cross_chain';
  checkCap(tokens.length, crossChain ? CROSS_CHAIN_MAX_CHILDREN : deps.maxChildren);

  const draft = draftLink(deps.clock, caller);
  const { now } = draft;
  const created = await deps.db.transaction(async (tx) => {
    // Locked, so a child cannot be merged, paid alone into a completed state, or joined to
    // another parent between the checks and the insert.
    const rows = await tx
      .select()
      .from(securePayments)
      .where(inArray(securePayments.token, tokens))
      .for('update');
    const byToken = new Map(rows.map((row) => [row.token, row]));
    const linkRequests = await requestsOfLinks(
      tx,
      rows.map((row) => row.id),
    );
    const busy = await parentsWaitingOn(
      tx,
      rows.map((row) => row.id),
      now,
    );
    const children: Child[] = [];
    const failures: Failure[] = [];
    let anchor: LinkRow | null = null;
    for (const [position, wanted] of tokens.entries()) {
      const name = input.childTokens[position] ?? wanted;
      const row = byToken.get(wanted);
      if (!row) {
        failures.push(failure(name, position, 'not_found', null, now));
        continue;
      }
      const child = {
        position,
        row,
        requests: linkRequests.filter((r) => r.securePaymentId === row.id),
      };
      if (row.accountId !== caller.accountId) {
        // Another account's link is named, never described.
        failures.push(failure(name, position, 'not_owned', null, now));
        continue;
      }
      const reason =
        childBlock(child, now) ??
        (busy.has(row.id) ? 'request_processing' : null) ??
        linkageProblem(anchor, row, input.requestedExecutionKind) ??
        (payable(deps.chains, child, crossChain) ? null : 'not_payable_child');
      if (reason) {
        failures.push(failure(name, position, reason, child, now));
        continue;
      }
      anchor ??= row;
      children.push(child);
    }
    if (failures.length > 0) throw validationFailed(failures);
    // Children on several networks are paid from one source chain: a cross-chain multicall,
    // with its own cap, each child then routed on its own.
    const networks = new Set(children.map((child) => child.row.network));
    if (networks.size > 1) {
      checkCap(children.length, CROSS_CHAIN_MAX_CHILDREN);
      const unroutable = children.filter((child) => !payable(deps.chains, child, true));
      if (unroutable.length > 0) {
        throw validationFailed(
          unroutable.map((child) =>
            failure(child.row.token, child.position, 'not_payable_child', child, now),
          ),
        );
      }
    }
    if (!anchor) throw new Error('multicall without children');
    // As for batch payouts: else the parent could never be paid while holding its children.
    checkTotalsFit(
      children.flatMap((child) => child.requests),
      'childTokens',
    );

    const expiresAt = new Date(Math.min(...children.map((child) => child.row.expiresAt.getTime())));
    const parent = await insertLink(tx, {
      ...draft,
      network: anchor.network,
      creatorWallet: anchor.creatorWallet,
      multicall: { executionKind: input.requestedExecutionKind ?? null, expiresAt },
    });
    await tx.insert(multicallChildren).values(
      children.map((child) => ({
        parentId: parent.id,
        childId: child.row.id,
        position: child.position,
      })),
    );
    return { children, expiresAt };
  });
  return {
    type: 'multicall',
    token: draft.token,
    securePaymentUrl: securePaymentUrl(deps.payUrl, draft.token),
    status: 'pending',
    expiresAt: created.expiresAt.toISOString(),
    createdAt: now.toISOString(),
    items: created.children.map((child) => ({
      securePaymentToken: child.row.token,
      requestId: child.requests[0]?.requestId ?? '',
      position: child.position,
      eligibility: 'eligible',
    })),
  };
}

/**
 * Whether `row` can be paid together with the first eligible child: by the same wallet, on
 * the same kind of network, and on the same network unless the caller asked for cross-chain
 * or left the kind open (children on several networks then make a cross-chain multicall).
 */
function linkageProblem(
  anchor: LinkRow | null,
  row: LinkRow,
  requested: ExecutionKind | undefined,
): BlockReason | null {
  const tron = row.network === 'tron';
  if (requested === 'tron_batch' && !tron) return 'invalid_child_linkage';
  if (requested === 'evm_same_chain' && tron) return 'invalid_child_linkage';
  if (!anchor) return null;
  if (anchor.creatorWallet?.toLowerCase() !== row.creatorWallet?.toLowerCase()) {
    return 'invalid_child_linkage';
  }
  if ((anchor.network === 'tron') !== tron) return 'invalid_child_linkage';
  if (requested === 'evm_same_chain' && anchor.network !== row.network) {
    return 'invalid_child_linkage';
  }
  return null;
}

/**
 * A child must be payable by the batch contract of its network: one this server serves, with
 * the contract deployed, and on Tron a TRC-20 (ERC20BatchPayments moves no TRX). A child of a
 * cross-chain multicall is paid by its route's call of the fee proxy on its network instead:
 * an EVM network with the fee proxy, in a token (a bridge delivers tokens).
 */
function payable(chains: ChainRegistry, child: Child, crossChain: boolean): boolean {
  const network = chains.network(child.row.network);
  const currency = chains.currency(child.requests[0]?.paymentCurrency ?? '');
  if (!network || !currency) return false;
  if (crossChain) {
    return (
      network.kind === 'evm' &&
      !isNative(currency) &&
      chains.contracts(network.id).erc20FeeProxy !== null
    );
  }
  if (chains.contracts(network.id).batchPayments === null) return false;
  return network.kind !== 'tron' || !isNative(currency);
}
