import type { AttemptRecord, ClaimBudgets, Claimed } from './claims.ts';

/**
 * Which claimed delivery takes the next free send slot. Each endpoint has a share of the slots
 * that starts small and grows while it answers quickly; one that times out, refuses
 * connections or answers 5xx/429 drops to a single slot until it answers 2xx again. Accounts
 * take turns (round robin), and within an account its endpoints do, so a tenant whose endpoint
 * hangs holds a few slots, never all of them. The shares only matter under contention: while
 * nothing else can be sent, an endpoint that keeps answering quickly may borrow every slot but
 * one, the one left for whatever comes next.
 *
 * Only shares and the rows this process holds live here; what is due and who holds what across
 * processes is the claim's (src/webhooks/claims.ts), which takes at most each endpoint's
 * `budget` per claim.
 */

/** An endpoint not seen before may have this many sends in flight at once. */
const START_SHARE = 4;
/**
 * An endpoint that keeps answering quickly grows to this many, leaving the rest to others (and
 * may borrow beyond it while they have nothing to send).
 */
const MAX_SHARE = 16;
/** An account's endpoints together never hold more than this many slots. */
const ACCOUNT_SHARE = 16;
/**
 * Rows an endpoint may hold (queued or in flight) per slot of its share: eight rounds of its
 * sends (`holdOf`). A held row then starts within ten of its endpoint's attempt timeouts,
 * inside the claim's lease (eleven timeouts and a margin), even when that endpoint answers none.
 */
const HOLD_ROUNDS = 8;
/** A 2xx slower than this fraction of the attempt timeout does not grow the share. */
const SLOW_FRACTION = 0.2;
/**
 * An endpoint holding its borrowed slots' rounds (`quick`) keeps them until an answer slower
 * than this fraction of the timeout; answers between the two fractions change nothing. Without
 * the gap, an endpoint answering at about a fifth of the timeout flipped its hold at each answer,
 * handing back and claiming again some twenty rows each time.
 */
const SLOWER_FRACTION = 2 * SLOW_FRACTION;
/** Endpoints remembered at most (their shares); beyond it, all start afresh. */
const MAX_ENDPOINTS = 10_000;
/** Slots a borrowing endpoint leaves free, so what comes next waits for no borrowed slot. */
const RESERVE = 1;
/** Ids of rows given back as lapsing remembered at most; beyond it, all are forgotten. */
const MAX_RETURNING = 10_000;

/**
 * Rows an endpoint with `share` may hold (queued or in flight): `HOLD_ROUNDS` rounds of its
 * sends. At the largest share, while it answers `quick`, of all the slots it may
 * borrow: an endpoint alone in the queue then sends from every slot but one, and a hold of its
 * share's rounds only ran its queue dry between claims (on the bench, the sends stood idle a
 * fifth of the time, waiting for a claim the hold had cut short). Should others come, it sends
 * from its share alone, and what it holds lasts `heldRounds` rounds at most. Should it answer
 * slowly, it holds its share's rounds again (what others queue behind it is claimed sooner);
 * should it stop answering, its share drops to one; either way what it holds beyond goes back
 * (`finished`).
 */
function holdOf(share: number, slots: number, quick: boolean): number {
  return (share >= MAX_SHARE && quick ? slots - RESERVE : share) * HOLD_ROUNDS;
}

/**
 * The most rounds of its own sends an endpoint's held rows wait for a slot, with `slots` in
 * all: the claim's lease (dispatcher.ts) outlasts them.
 */
export function heldRounds(slots: number): number {
  return Math.ceil(holdOf(MAX_SHARE, slots, true) / MAX_SHARE);
}

interface Endpoint {
  share: number;
  /**
   * A 2xx came within `SLOW_FRACTION` of the timeout, and no failure nor answer slower than
   * `SLOWER_FRACTION` since.
   */
  quick: boolean;
  inFlight: number;
  readonly queue: Claimed[];
  /** Sends started so far: each send's number tells whether it started after a failure. */
  sent: number;
  /**
   * After a send that got no answer: the number of the first send started since. One of those
   * getting no answer too is a second failure in a row, and the endpoint backs off.
   */
  probeFrom: number | null;
}

/** What an attempt's end changes for the rows held of its endpoint. */
interface Finished {
  /** Queued rows the endpoint may no longer hold, taken off the queue. */
  readonly dropped: Claimed[];
  /** The endpoint answered nothing twice in a row: it backs off as a whole (`deferEndpoint`). */
  readonly backOff: boolean;
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
   * Hands back the queued rows beyond its budget when its share shrank; those never tried,
   * and a back-off, when a send started after one that got no answer got none either. One silence
   * alone (a loaded machine, a pause) only shrinks the share: the next send is the probe.
   */
  finished(row: Claimed, record: AttemptRecord | undefined): Finished;
  /**
   * `row` was taken but not sent, its lease too short (it goes back to be claimed again):
   * `finished` without an outcome, and once claimed again it is its endpoint's next row.
   */
  lapsed(row: Claimed): Finished;
  /** Per endpoint held here, the rows a claim may still take for it (what it is not given: the default). */
  budgets(): ClaimBudgets;
  /** Whether an endpoint that a claim found at its budget now has room for half of it again. */
  roomFor(webhookId: string): boolean;
  /** Every queued row, taken off the queue (a stop hands them back). */
  drain(): Claimed[];
}

export function createScheduler(config: {
  readonly timeoutMs: number;
  /** Sends in flight at most (the dispatcher's pool). */
  readonly slots: number;
}): Scheduler {
  const endpoints = new Map<string, Endpoint>();
  /** Each send in flight's number among its endpoint's (`Endpoint.sent`), by delivery id. */
  const sendNumbers = new Map<string, number>();
  let inFlight = 0;
  /** Per account (a webhook's owner), its endpoints with rows queued, in turn order. */
  const turns = new Map<string, Set<string>>();
  const accountInFlight = new Map<string, number>();
  let queued = 0;

  const endpointOf = (webhookId: string): Endpoint => {
    let endpoint = endpoints.get(webhookId);
    if (endpoint === undefined) {
      if (endpoints.size >= MAX_ENDPOINTS) forgetIdle();
      endpoint = {
        share: START_SHARE,
        quick: false,
        inFlight: 0,
        queue: [],
        sent: 0,
        probeFrom: null,
      };
      endpoints.set(webhookId, endpoint);
    }
    return endpoint;
  };
  const forgetIdle = () => {
    for (const [id, endpoint] of endpoints) {
      if (endpoint.inFlight === 0 && endpoint.queue.length === 0) endpoints.delete(id);
    }
  };
  const budgetOf = (endpoint: Endpoint) => holdOf(endpoint.share, config.slots, endpoint.quick);
  const held = (endpoint: Endpoint) => endpoint.inFlight + endpoint.queue.length;

  const enqueueTurn = (row: Claimed) => {
    let owned = turns.get(row.owner);
    if (owned === undefined) {
      owned = new Set();
      turns.set(row.owner, owned);
    }
    owned.add(row.webhook_id);
  };

  /**
   * The endpoint's next row when both it and its account have a free slot; when `borrowing`,
   * the next row of an endpoint at its largest share, whatever the shares (nothing else waits
   * that could be sent).
   */
  const take = (owner: string, owned: Set<string>, borrowing: boolean): Claimed | undefined => {
    if (!borrowing && (accountInFlight.get(owner) ?? 0) >= ACCOUNT_SHARE) return undefined;
    for (const webhookId of owned) {
      const endpoint = endpointOf(webhookId);
      if (borrowing ? endpoint.share < MAX_SHARE : endpoint.inFlight >= endpoint.share) continue;
      const row = endpoint.queue.shift();
      // Its turn passes: to the back of the account's endpoints (or out, when it has no more).
      owned.delete(webhookId);
      if (row === undefined) continue;
      if (endpoint.queue.length > 0) owned.add(webhookId);
      endpoint.inFlight += 1;
      sendNumbers.set(row.id, endpoint.sent);
      endpoint.sent += 1;
      accountInFlight.set(owner, (accountInFlight.get(owner) ?? 0) + 1);
      inFlight += 1;
      queued -= 1;
      return row;
    }
    return undefined;
  };

  /**
   * Rows given back as lapsing (`lapsed`), by id: claimed again, each goes to the front of its
   * endpoint's queue rather than behind every row held since, where it could wait out its new
   * lease too. Only those: a retry or a redelivery keeps its place at the back, so the rows
   * held keep starting within `heldRounds`. Bounded: a row another process claims never comes
   * back here.
   */
  const returning = new Set<string>();

  /** The next row in the accounts' turns, as `take` finds it. */
  const nextInTurn = (borrowing: boolean): Claimed | undefined => {
    for (const [owner, owned] of turns) {
      const row = take(owner, owned, borrowing);
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
  };

  /** An attempt of `row` ended, or it was not sent (no record): `Scheduler.finished`. */
  const finish = (row: Claimed, record: AttemptRecord | undefined): Finished => {
    const endpoint = endpointOf(row.webhook_id);
    endpoint.inFlight = Math.max(0, endpoint.inFlight - 1);
    inFlight = Math.max(0, inFlight - 1);
    const inAccount = (accountInFlight.get(row.owner) ?? 1) - 1;
    if (inAccount > 0) accountInFlight.set(row.owner, inAccount);
    else accountInFlight.delete(row.owner);
    const number = sendNumbers.get(row.id) ?? 0;
    sendNumbers.delete(row.id);
    endpoint.share = nextShare(endpoint.share, record, config.timeoutMs);
    endpoint.quick = quickAnswer(record, config.timeoutMs) ?? endpoint.quick;
    let backOff = false;
    if (record !== undefined && record.statusCode === null) {
      // Sends out before the first silence say nothing new: only the probe after it does.
      if (endpoint.probeFrom !== null && number >= endpoint.probeFrom) backOff = true;
      else endpoint.probeFrom ??= endpoint.sent;
    } else if (record !== undefined) {
      endpoint.probeFrom = null;
    }
    if (backOff) {
      // What was never tried goes back, to wait for the retry of the send that failed;
      // retries keep their own schedules (docs/webhooks.md), one slot at a time.
      const dropped = endpoint.queue.filter((queuedRow) => queuedRow.attempts === 1);
      const retries = endpoint.queue.filter((queuedRow) => queuedRow.attempts !== 1);
      endpoint.queue.splice(0, endpoint.queue.length, ...retries);
      queued -= dropped.length;
      return { dropped, backOff };
    }
    const room = Math.max(0, budgetOf(endpoint) - endpoint.inFlight);
    if (endpoint.queue.length <= room) return { dropped: [], backOff };
    const dropped = endpoint.queue.splice(room);
    queued -= dropped.length;
    return { dropped, backOff };
  };

  return {
    get queued() {
      return queued;
    },
    add(rows) {
      const ahead: Claimed[] = [];
      for (const row of rows) {
        if (returning.delete(row.id)) ahead.push(row);
        else endpointOf(row.webhook_id).queue.push(row);
        enqueueTurn(row);
        queued += 1;
      }
      // In their claim's order, ahead of what each endpoint held.
      for (const row of ahead.reverse()) endpointOf(row.webhook_id).queue.unshift(row);
    },
    next() {
      return (
        nextInTurn(false) ?? (inFlight + RESERVE < config.slots ? nextInTurn(true) : undefined)
      );
    },
    finished: finish,
    lapsed(row) {
      if (returning.size >= MAX_RETURNING) returning.clear();
      returning.add(row.id);
      return finish(row, undefined);
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

/**
 * Whether an attempt's answer was a quick 2xx (true), or a slow answer or a failure (false);
 * null when it says nothing new of the endpoint's speed (an answer between `SLOW_FRACTION` and
 * `SLOWER_FRACTION` of the timeout, a quick answer other than a 2xx, or no record).
 */
function quickAnswer(record: AttemptRecord | undefined, timeoutMs: number): boolean | null {
  if (record === undefined) return null;
  const code = record.statusCode;
  if (code === null || code >= 500 || code === 429) return false;
  // Any answer slower than two fifths of the timeout is slow; one between a fifth and two
  // fifths, or a quick one other than a 2xx, says nothing new of the endpoint's speed.
  if (record.durationMs > SLOWER_FRACTION * timeoutMs) return false;
  if (record.durationMs > SLOW_FRACTION * timeoutMs) return null;
  return code >= 200 && code < 300 ? true : null;
}

/**
 * The endpoint's share after an attempt: one more after a quick 2xx (back to the start after
 * failures), the same after a slow one, one slot after no answer (a timeout, a refused connection) or a 5xx or 429, the answers of
 * an endpoint that cannot keep up. Other answers (a 4xx) say nothing about its capacity.
 */
function nextShare(share: number, record: AttemptRecord | undefined, timeoutMs: number): number {
  if (record === undefined) return share;
  const code = record.statusCode;
  if (code === null || code >= 500 || code === 429) return 1;
  if (code < 200 || code >= 300) return share;
  if (record.durationMs > SLOW_FRACTION * timeoutMs) return Math.max(share, START_SHARE);
  return share < START_SHARE ? START_SHARE : Math.min(MAX_SHARE, share + 1);
}
