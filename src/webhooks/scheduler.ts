import type { AttemptRecord, ClaimBudgets, Claimed } from './claims.ts';

/**
 * Which claimed delivery takes the next free send slot. Each endpoint has a share of the slots
 * that starts small and grows while it answers quickly; one that times out, refuses
 * connections or answers 5xx/429 drops to a single slot until it answers 2xx again. Accounts take turns (round robin), and within an account its endpoints do, so a
 * tenant whose endpoint hangs holds a few slots, never all of them.
 *
 * Only shares and the rows this process holds live here; what is due and who holds what across
 * processes is the claim's (src/webhooks/claims.ts), which takes at most each endpoint's
 * `budget` per claim.
 */

/** An endpoint not seen before may have this many sends in flight at once. */
const START_SHARE = 4;
/** An endpoint that keeps answering quickly grows to this many, leaving the rest to others. */
const MAX_SHARE = 16;
/** An account's endpoints together never hold more than this many slots. */
const ACCOUNT_SHARE = 16;
/**
 * Rows an endpoint may hold (queued or in flight) per slot of its share: eight rounds of its
 * sends. A held row then starts within eight of its endpoint's attempt timeouts, inside the
 * claim's lease (nine timeouts and a margin), even when that endpoint answers none.
 */
const HOLD_ROUNDS = 8;
/** A 2xx slower than this fraction of the attempt timeout does not grow the share. */
const SLOW_FRACTION = 0.2;
/** Endpoints remembered at most (their shares); beyond it, all start afresh. */
const MAX_ENDPOINTS = 10_000;

interface Endpoint {
  share: number;
  inFlight: number;
  readonly queue: Claimed[];
}

export interface Scheduler {
  /** Rows waiting for a slot. */
  readonly queued: number;
  /** Claimed rows, to be sent in their turn. */
  add(rows: readonly Claimed[]): void;
  /** The next row to send, taken off the queue and counted in flight; none when all wait. */
  next(): Claimed | undefined;
  /**
   * An attempt of `row` ended: its slot is free and its endpoint's share follows the outcome.
   * Returns queued rows the endpoint may no longer hold, taken off the queue: beyond its budget
   * when its share shrank, all of them when it answered nothing.
   */
  finished(row: Claimed, record: AttemptRecord | undefined): Claimed[];
  /** Per endpoint held here, the rows a claim may still take for it (what it is not given: the default). */
  budgets(): ClaimBudgets;
  /** Whether an endpoint that a claim found at its budget now has room for half of it again. */
  roomFor(webhookId: string): boolean;
  /** Every queued row, taken off the queue (a stop hands them back). */
  drain(): Claimed[];
}

export function createScheduler(config: { readonly timeoutMs: number }): Scheduler {
  const endpoints = new Map<string, Endpoint>();
  /** Per account (a webhook's owner), its endpoints with rows queued, in turn order. */
  const turns = new Map<string, Set<string>>();
  const accountInFlight = new Map<string, number>();
  let queued = 0;

  const endpointOf = (webhookId: string): Endpoint => {
    let endpoint = endpoints.get(webhookId);
    if (endpoint === undefined) {
      if (endpoints.size >= MAX_ENDPOINTS) forgetIdle();
      endpoint = { share: START_SHARE, inFlight: 0, queue: [] };
      endpoints.set(webhookId, endpoint);
    }
    return endpoint;
  };
  const forgetIdle = () => {
    for (const [id, endpoint] of endpoints) {
      if (endpoint.inFlight === 0 && endpoint.queue.length === 0) endpoints.delete(id);
    }
  };
  const budgetOf = (endpoint: Endpoint) => endpoint.share * HOLD_ROUNDS;
  const held = (endpoint: Endpoint) => endpoint.inFlight + endpoint.queue.length;

  const enqueueTurn = (row: Claimed) => {
    let owned = turns.get(row.owner);
    if (owned === undefined) {
      owned = new Set();
      turns.set(row.owner, owned);
    }
    owned.add(row.webhook_id);
  };

  /** The endpoint's next row when both it and its account have a free slot. */
  const take = (owner: string, owned: Set<string>): Claimed | undefined => {
    if ((accountInFlight.get(owner) ?? 0) >= ACCOUNT_SHARE) return undefined;
    for (const webhookId of owned) {
      const endpoint = endpointOf(webhookId);
      if (endpoint.inFlight >= endpoint.share) continue;
      const row = endpoint.queue.shift();
      // Its turn passes: to the back of the account's endpoints (or out, when it has no more).
      owned.delete(webhookId);
      if (row === undefined) continue;
      if (endpoint.queue.length > 0) owned.add(webhookId);
      endpoint.inFlight += 1;
      accountInFlight.set(owner, (accountInFlight.get(owner) ?? 0) + 1);
      queued -= 1;
      return row;
    }
    return undefined;
  };

  return {
    get queued() {
      return queued;
    },
    add(rows) {
      for (const row of rows) {
        endpointOf(row.webhook_id).queue.push(row);
        enqueueTurn(row);
        queued += 1;
      }
    },
    next() {
      for (const [owner, owned] of turns) {
        const row = take(owner, owned);
        if (row === undefined) {
          if (owned.size === 0) turns.delete(owner);
          continue;
        }
        // The account's turn passes too.
        turns.delete(owner);
        if (owned.size > 0) turns.set(owner, owned);
        return row;
      }
      return undefined;
    },
    finished(row, record) {
      const endpoint = endpointOf(row.webhook_id);
      endpoint.inFlight = Math.max(0, endpoint.inFlight - 1);
      const inAccount = (accountInFlight.get(row.owner) ?? 1) - 1;
      if (inAccount > 0) accountInFlight.set(row.owner, inAccount);
      else accountInFlight.delete(row.owner);
      endpoint.share = nextShare(endpoint.share, record, config.timeoutMs);
      // An endpoint that answered nothing backs off: its queue goes back, to wait for its retry.
      const room = answered(record) ? Math.max(0, budgetOf(endpoint) - endpoint.inFlight) : 0;
      if (endpoint.queue.length <= room) return [];
      const dropped = endpoint.queue.splice(room);
      queued -= dropped.length;
      return dropped;
    },
    budgets() {
      const budgets: Record<string, number> = {};
      for (const [id, endpoint] of endpoints) {
        const room = budgetOf(endpoint) - held(endpoint);
        if (room !== START_SHARE * HOLD_ROUNDS) budgets[id] = Math.max(0, room);
      }
      return { budgets, otherwise: START_SHARE * HOLD_ROUNDS };
    },
    roomFor(webhookId) {
      const endpoint = endpoints.get(webhookId);
      return endpoint === undefined || 2 * held(endpoint) <= budgetOf(endpoint);
    },
    drain() {
      const rows: Claimed[] = [];
      for (const endpoint of endpoints.values()) rows.push(...endpoint.queue.splice(0));
      turns.clear();
      queued = 0;
      return rows;
    },
  };
}

/**
 * The endpoint's share after an attempt: one more after a quick 2xx (back to the start after
 * failures), the same after a slow one,
 * one slot after no answer (a timeout, a refused connection) or a 5xx or 429, the answers of
 * an endpoint that cannot keep up. Other answers (a 4xx) say nothing about its capacity.
 */
/** Endpoints a claim with `budgets` took all it could of (or left out), given what it took. */
export function cappedBy(budgets: ClaimBudgets, taken: readonly Claimed[]): string[] {
  const counts = new Map<string, number>();
  for (const row of taken) counts.set(row.webhook_id, (counts.get(row.webhook_id) ?? 0) + 1);
  const capped = Object.keys(budgets.budgets).filter((id) => budgets.budgets[id] === 0);
  for (const [id, count] of counts) {
    if (count >= (budgets.budgets[id] ?? budgets.otherwise)) capped.push(id);
  }
  return capped;
}

/** False when the attempt got no answer (a timeout, a refused or dropped connection). */
export function answered(record: AttemptRecord | undefined): boolean {
  return record === undefined || record.statusCode !== null;
}

function nextShare(share: number, record: AttemptRecord | undefined, timeoutMs: number): number {
  if (record === undefined) return share;
  const code = record.statusCode;
  if (code === null || code >= 500 || code === 429) return 1;
  if (code < 200 || code >= 300) return share;
  if (record.durationMs > SLOW_FRACTION * timeoutMs) return Math.max(share, START_SHARE);
  return share < START_SHARE ? START_SHARE : Math.min(MAX_SHARE, share + 1);
}
