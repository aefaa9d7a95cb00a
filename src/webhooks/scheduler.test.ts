import { describe, expect, it } from 'vitest';
import type { AttemptRecord, Claimed } from './claims.ts';
import { createScheduler, heldRounds } from './scheduler.ts';

/**
 * The scheduler's shares and holds, without a database or a receiver: rows are made here and
 * attempts end as the test says (the dispatcher tests run it against real servers).
 */

const TIMEOUT_MS = 5_000;
const SLOTS = 20;

let made = 0;
function row(webhookId: string, owner = 'acct_a'): Claimed {
  made += 1;
  return {
    id: `dlv_${String(made).padStart(6, '0')}`,
    webhook_id: webhookId,
    owner,
    body: '{}',
    test: false,
    attempts: 1,
    created_ms: 0,
    leased_until_ms: Number.MAX_SAFE_INTEGER,
    url: 'http://127.0.0.1:1/',
    secret_sealed: 'sealed',
    live: true,
    retry_backoff_seconds: null,
    retry_max_delay_seconds: null,
    retry_for_seconds: null,
  };
}

function outcome(of: Claimed, statusCode: number | null, durationMs = 5): AttemptRecord {
  return {
    deliveryId: of.id,
    attempt: of.attempts,
    status: statusCode === 200 ? 'delivered' : 'pending',
    statusCode,
    error: null,
    responseExcerpt: null,
    durationMs,
    at: new Date(0),
    nextAttemptAt: null,
  };
}

const rowsOf = (webhookId: string, count: number) =>
  Array.from({ length: count }, () => row(webhookId));

/**
 * Sends what the scheduler gives, each answered with `statusCode` after `durationMs`, `times`
 * times; returns what the last end dropped.
 */
function answer(
  scheduler: ReturnType<typeof createScheduler>,
  times: number,
  statusCode: number | null = 200,
  durationMs = 5,
): Claimed[] {
  let dropped: Claimed[] = [];
  for (let i = 0; i < times; i++) {
    const next = scheduler.next();
    if (next === undefined) throw new Error('nothing to send');
    dropped = scheduler.finished(next, outcome(next, statusCode, durationMs)).dropped;
  }
  return dropped;
}

describe('what an endpoint may hold', () => {
  it('starts at four slots’ eight rounds, and grows to every borrowable slot’s at its largest share', () => {
    const scheduler = createScheduler({ timeoutMs: TIMEOUT_MS, slots: SLOTS });
    // Not seen yet: the default budget, four slots of eight rounds.
    expect(scheduler.budgets()).toEqual({ budgets: {}, otherwise: 32 });
    scheduler.add(rowsOf('whk_fast', 400));
    // Twelve quick answers take its share from 4 to 16, its largest.
    answer(scheduler, 12);
    const held = scheduler.queued;
    // At 16 it may borrow 19 of the 20 slots (one stays free), and holds 19 × 8 rows.
    expect(scheduler.budgets().budgets.whk_fast).toBe(19 * 8 - held);
    // Alone, it sends from 19 slots at once.
    const out = Array.from({ length: SLOTS }, () => scheduler.next()).filter(Boolean);
    expect(out).toHaveLength(19);
  });

  it('at its largest share but answering slowly, holds eight rounds of its share again', () => {
    const scheduler = createScheduler({ timeoutMs: TIMEOUT_MS, slots: SLOTS });
    scheduler.add(rowsOf('whk_slows_down', 20));
    answer(scheduler, 12);
    scheduler.add(rowsOf('whk_slows_down', 19 * 8 - scheduler.queued));
    // A 2xx after two fifths of the timeout keeps its share (16), not the borrowed hold.
    const dropped = answer(scheduler, 1, 200, TIMEOUT_MS / 2);
    expect(dropped).toHaveLength(19 * 8 - 1 - 16 * 8);
    expect(scheduler.budgets().budgets.whk_slows_down).toBe(0);
    // Quick again: the borrowed hold comes back.
    answer(scheduler, 1);
    expect(scheduler.budgets().budgets.whk_slows_down).toBe(19 * 8 - scheduler.queued);
    // A slow answer of any code is slow; a quick 4xx says nothing of its speed.
    answer(scheduler, 1, 404, TIMEOUT_MS / 2);
    expect(scheduler.budgets().budgets.whk_slows_down).toBe(16 * 8 - scheduler.queued);
    answer(scheduler, 1);
    answer(scheduler, 1, 404);
    expect(scheduler.budgets().budgets.whk_slows_down).toBe(19 * 8 - scheduler.queued);
  });

  it('keeps its hold while its answers hover between a fifth and two fifths of the timeout', () => {
    const scheduler = createScheduler({ timeoutMs: TIMEOUT_MS, slots: SLOTS });
    scheduler.add(rowsOf('whk_hovers', 20));
    answer(scheduler, 12);
    scheduler.add(rowsOf('whk_hovers', 19 * 8 - scheduler.queued));
    const hold = () => (scheduler.budgets().budgets.whk_hovers ?? 0) + scheduler.queued;
    expect(hold()).toBe(19 * 8);
    // Answers either side of a fifth: the borrowed hold stays, nothing handed back.
    for (const fraction of [0.21, 0.19, 0.3, 0.19, 0.39]) {
      expect(answer(scheduler, 1, 200, fraction * TIMEOUT_MS)).toEqual([]);
      expect(hold()).toBe(19 * 8);
      scheduler.add(rowsOf('whk_hovers', 1));
    }
    // Past two fifths: its share's hold, kept through answers in between again.
    expect(answer(scheduler, 1, 200, 0.41 * TIMEOUT_MS).length).toBeGreaterThan(0);
    expect(hold()).toBe(16 * 8);
    for (const fraction of [0.3, 0.21, 0.39]) {
      expect(answer(scheduler, 1, 200, fraction * TIMEOUT_MS)).toEqual([]);
      expect(hold()).toBe(16 * 8);
    }
    // Under a fifth: the borrowed hold again.
    answer(scheduler, 1, 200, 0.1 * TIMEOUT_MS);
    expect(hold()).toBe(19 * 8);
  });

  it('below its largest share, holds eight rounds of its share', () => {
    const scheduler = createScheduler({ timeoutMs: TIMEOUT_MS, slots: SLOTS });
    scheduler.add(rowsOf('whk_growing', 100));
    answer(scheduler, 3); // 4 → 7
    expect(scheduler.budgets().budgets.whk_growing).toBe(7 * 8 - scheduler.queued);
  });

  it('gives back what it holds beyond one slot’s rounds once it stops answering', () => {
    const scheduler = createScheduler({ timeoutMs: TIMEOUT_MS, slots: SLOTS });
    scheduler.add(rowsOf('whk_goes_silent', 20));
    answer(scheduler, 12);
    // At its largest share, it is given all it may hold.
    scheduler.add(rowsOf('whk_goes_silent', 19 * 8 - scheduler.queued));
    expect(scheduler.budgets().budgets.whk_goes_silent).toBe(0);
    const silent = scheduler.next();
    if (silent === undefined) throw new Error('nothing to send');
    const { dropped, backOff } = scheduler.finished(silent, outcome(silent, null));
    expect(backOff).toBe(false);
    // Its share is one slot: eight rows stay queued, the rest go back to the outbox.
    expect(scheduler.queued).toBe(8);
    expect(dropped).toHaveLength(19 * 8 - 1 - 8);
  });

  it('lets what one endpoint holds wait at most ten rounds of its own sends', () => {
    // 19 × 8 rows sent from its own 16 slots, once others come and it borrows none.
    expect(heldRounds(SLOTS)).toBe(10);
  });
});

describe('the order an endpoint sends in', () => {
  it('sends a row claimed again (given back as lapsing) before the rows held since', () => {
    const scheduler = createScheduler({ timeoutMs: TIMEOUT_MS, slots: SLOTS });
    const [first, ...rest] = rowsOf('whk_busy', 6);
    if (first === undefined) throw new Error('no rows');
    scheduler.add([first]);
    // Taken, and given back unsent: its lease was running out.
    expect(scheduler.next()?.id).toBe(first.id);
    expect(scheduler.lapsed(first)).toEqual({ dropped: [], backOff: false });
    // Rows written after it were claimed meanwhile; then it comes back with a new lease.
    scheduler.add(rest);
    scheduler.add([{ ...first, leased_until_ms: first.leased_until_ms - 1 }]);
    // Its share's four slots: it goes out first, then the others in their claim's order.
    const sent = Array.from({ length: 4 }, () => scheduler.next()?.id);
    expect(sent).toEqual([first.id, ...rest.slice(0, 3).map((r) => r.id)]);
  });

  it('keeps a retry claimed later behind the rows held, older though its event is', () => {
    const scheduler = createScheduler({ timeoutMs: TIMEOUT_MS, slots: SLOTS });
    const [retry, ...held] = rowsOf('whk_recovering', 4);
    if (retry === undefined) throw new Error('no rows');
    scheduler.add(held);
    scheduler.add([{ ...retry, attempts: 3 }]);
    const sent = Array.from({ length: 4 }, () => scheduler.next()?.id);
    expect(sent).toEqual([...held.map((r) => r.id), retry.id]);
  });
});
