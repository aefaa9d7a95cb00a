import { Writable } from 'node:stream';
import { describe, expect, inject, it } from 'vitest';
import { openTestDatabase } from '../../test/database.ts';
import { createLeaderLock } from '../db/leader-lock.ts';
import { createLogger } from './logger.ts';
import { createPoller } from './poller.ts';

/**
 * The one loop every background worker runs on: rounds one at a time, a stop that waits for
 * the round in progress, back-off after errors, a fast path while work is left, and a leader
 * lock that lets one process at a time run rounds. Real timers throughout.
 */

const FAILURE = { level: 'warn', message: 'test round failed' } as const;

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return {
    logger: createLogger('info', stream),
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('a poller', () => {
  it('waits in stop() for the round in progress, and runs none after it', async () => {
    const held = gate();
    let rounds = 0;
    let finished = 0;
    const poller = createPoller({
      logger: capture().logger,
      pollMs: 10,
      round: async () => {
        rounds += 1;
        await held.opened;
        finished += 1;
        return false;
      },
      failure: FAILURE,
    });
    poller.start();
    expect(rounds).toBe(1);
    let stopped = false;
    const stopping = poller.stop().then(() => {
      stopped = true;
    });
    await sleep(50);
    expect(stopped).toBe(false);
    held.open();
    await stopping;
    expect(finished).toBe(1);
    await sleep(50);
    expect(rounds).toBe(1);
  });

  it('backs off after an error, logs it, and starts over after a success', async () => {
    const POLL_MS = 100;
    const { logger, entries } = capture();
    const at: number[] = [];
    // Rounds 1, 2 and 4 fail.
    const failing = new Set([1, 2, 4]);
    const poller = createPoller({
      logger,
      pollMs: POLL_MS,
      round: async () => {
        at.push(performance.now());
        if (failing.has(at.length)) throw new Error(`round ${at.length} broke`);
        return false;
      },
      failure: FAILURE,
    });
    poller.start();
    try {
      await expect.poll(() => at.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(6);
    } finally {
      await poller.stop();
    }
    const gaps = at.slice(1, 6).map((time, i) => time - (at[i] ?? 0));
    const waits = gaps.map((gap) => gap / POLL_MS);
    // Timers fire a hair early at times: a hundredth of slack below.
    const [first = 0, second = 0, success = 0, again = 0, last = 0] = waits;
    expect(first, `${waits}`).toBeGreaterThanOrEqual(1.99);
    expect(second, `${waits}`).toBeGreaterThanOrEqual(3.99);
    expect(success, `${waits}`).toBeGreaterThanOrEqual(0.99);
    expect(success, `${waits}`).toBeLessThan(2);
    // A failure after a success waits as the first did, not the 8 intervals of a third in a row.
    expect(again, `${waits}`).toBeGreaterThanOrEqual(1.99);
    expect(again, `${waits}`).toBeLessThan(6);
    expect(last, `${waits}`).toBeLessThan(2);
    const failures = entries().filter((entry) => entry.msg === FAILURE.message);
    expect(
      failures.map((entry) => [entry.level, (entry.err as { message: string }).message]),
    ).toEqual([
      [40, 'round 1 broke'],
      [40, 'round 2 broke'],
      [40, 'round 4 broke'],
    ]);
  });

  it('runs the next round at once while a round says there is more', async () => {
    let rounds = 0;
    // An hour apart: only the fast path can bring the later rounds.
    const poller = createPoller({
      logger: capture().logger,
      pollMs: 3_600_000,
      round: async () => {
        rounds += 1;
        return rounds < 4;
      },
      failure: FAILURE,
    });
    poller.start();
    try {
      await expect.poll(() => rounds, { timeout: 2_000 }).toBe(4);
      await sleep(50);
      expect(rounds).toBe(4);
    } finally {
      await poller.stop();
    }
  });

  it('runs a round on wake, and once more after the round a wake came during', async () => {
    const held = gate();
    let rounds = 0;
    const poller = createPoller({
      logger: capture().logger,
      pollMs: 3_600_000,
      round: async () => {
        rounds += 1;
        if (rounds === 2) await held.opened;
        return false;
      },
      failure: FAILURE,
    });
    poller.start();
    try {
      expect(rounds).toBe(1);
      poller.wake();
      await expect.poll(() => rounds).toBe(2);
      poller.wake();
      poller.wake();
      await sleep(50);
      expect(rounds).toBe(2);
      held.open();
      await expect.poll(() => rounds).toBe(3);
      await sleep(50);
      expect(rounds).toBe(3);
    } finally {
      await poller.stop();
    }
    poller.wake();
    await sleep(50);
    expect(rounds).toBe(3);
  });
});

const source = inject('testDatabase');

describe.runIf(source.kind === 'postgres')('two pollers sharing a leader lock on Postgres', () => {
  it('never run rounds at the same time, and the second takes over when the first stops', async () => {
    const database = await openTestDatabase();
    try {
      const name = `test:poller:${Math.random()}`;
      let inRound = 0;
      let overlaps = 0;
      const rounds = { first: 0, second: 0 };
      const poller = (who: keyof typeof rounds) =>
        createPoller({
          logger: capture().logger,
          pollMs: 10,
          // Each on a connection of its own, as two processes would hold it.
          lock: createLeaderLock(database, name),
          round: async () => {
            inRound += 1;
            if (inRound > 1) overlaps += 1;
            rounds[who] += 1;
            await sleep(5);
            inRound -= 1;
            return false;
          },
          failure: FAILURE,
        });
      const first = poller('first');
      const second = poller('second');
      first.start();
      await expect.poll(() => rounds.first).toBeGreaterThan(0);
      second.start();
      try {
        await sleep(300);
        expect(rounds.second).toBe(0);
        expect(rounds.first).toBeGreaterThan(3);
        await first.stop();
        const ranFirst = rounds.first;
        await expect.poll(() => rounds.second, { timeout: 5_000 }).toBeGreaterThan(3);
        expect(rounds.first).toBe(ranFirst);
        expect(overlaps).toBe(0);
      } finally {
        await Promise.all([first.stop(), second.stop()]);
      }
    } finally {
      await database.close();
    }
  });
});
