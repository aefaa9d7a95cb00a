import { describe, expect, it } from 'vitest';
import { createTurns } from './pglite.ts';

/**
 * The turns PGlite's statements take with the event loop. The clock is the test's: each piece
 * of work moves it on by a millisecond, and a callback of the loop (setImmediate, queued after
 * the first statement) stands for everything else the loop does between two turns.
 */
function world(gapMs: number) {
  let clock = 0;
  const log: string[] = [];
  const turn = createTurns({ maxMs: 16, now: () => clock });
  const statement = (name: string) =>
    turn(async () => {
      clock += 1;
      log.push(name);
      return name;
    });
  /** The rest of the loop: it takes `gapMs`, and comes round again while statements wait. */
  const loop = (until: Promise<unknown>) => {
    let done = false;
    void until.then(() => {
      done = true;
    });
    const go = () => {
      if (done) return;
      clock += gapMs;
      log.push('loop');
      setImmediate(go);
    };
    setImmediate(go);
  };
  return { log, statement, loop };
}

/** How many statements ran in each turn, between two runs of the rest of the loop. */
const turnLengths = (log: readonly string[]) =>
  log
    .join(' ')
    .split('loop')
    .map((turn) => turn.trim().split(' ').filter(Boolean).length)
    .filter((length) => length > 0);

describe('PGlite statements taking turns with the event loop', () => {
  it('runs statements one at a time, in the order they were asked', async () => {
    const turn = createTurns();
    const log: string[] = [];
    const all = await Promise.all(
      [1, 2, 3].map((n) =>
        turn(async () => {
          log.push(`start ${n}`);
          await new Promise((resolve) => setTimeout(resolve, 5 - n));
          log.push(`end ${n}`);
          return n;
        }),
      ),
    );
    expect(all).toEqual([1, 2, 3]);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('gives the rest of the loop its turn between turns of statements', async () => {
    const { log, statement, loop } = world(0);
    const all = Promise.all(Array.from({ length: 4 }, (_, n) => statement(`s${n}`)));
    loop(all);
    await all;
    // The rest of the loop takes no time: a turn is one statement, then the loop goes round.
    expect(log).toEqual(['s0', 'loop', 's1', 'loop', 's2', 'loop', 's3']);
  });

  it('runs a turn as long as the rest of the loop took, up to the most a turn runs', async () => {
    const busy = world(5);
    const some = Promise.all(Array.from({ length: 12 }, (_, n) => busy.statement(`s${n}`)));
    busy.loop(some);
    await some;
    expect(turnLengths(busy.log)).toEqual([1, 5, 5, 1]);

    const flooded = world(40);
    const more = Promise.all(Array.from({ length: 40 }, (_, n) => flooded.statement(`s${n}`)));
    flooded.loop(more);
    await more;
    expect(turnLengths(flooded.log)).toEqual([1, 16, 16, 7]);
  });

  it('goes on with the next statement when one fails', async () => {
    const turn = createTurns();
    const failing = turn(async () => {
      throw new Error('relation "nope" does not exist');
    });
    const next = turn(async () => 'ran');
    await expect(failing).rejects.toThrow('relation "nope" does not exist');
    expect(await next).toBe('ran');
  });
});
