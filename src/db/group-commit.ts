/**
 * Group commit: rows that concurrent callers write the same way are gathered and written
 * together, in one statement and one commit, and each caller is answered with its own row or
 * its own error. Postgres spends most of a one-row INSERT on what every statement and every
 * commit costs, whatever its size, so under load a group of rows costs little more than one.
 * A hot one-row SELECT gains alike: its keys go in one statement, each caller gets its row.
 *
 * No timer holds a row back. A row is written on the next turn of the event loop (rows that
 * arrive in the same turn go together), unless `maxInFlight` groups are already being written;
 * then it waits for one of them to finish and goes with every row that arrived meanwhile. The
 * wait is thus bounded by one group's write, and a caller alone waits for nothing.
 *
 * A group's write must be all or nothing (one statement, or one transaction). When it fails,
 * each of its rows is written again alone, so that a row the database refuses (a constraint it
 * breaks) fails only its own caller.
 */

export interface GroupCommitOptions<Row, Result> {
  /** Writes the rows at once, atomically; one result per row, in their order. */
  readonly writeGroup: (rows: readonly Row[]) => Promise<readonly Result[]>;
  /** Writes one row: a group of one, and each row of a group whose write failed. */
  readonly writeOne: (row: Row) => Promise<Result>;
  /** The most rows in one group (a statement's size stays bounded). */
  readonly maxRows?: number;
  /** Groups written at once; rows that arrive while that many are busy wait for the next. */
  readonly maxInFlight?: number;
}

/** What a group writer has done so far: tests and the bench read it. */
interface GroupCommitStats {
  /** Writes sent: groups, rows written alone included (each is one statement or transaction). */
  writes: number;
  /** Rows written, or refused, through the writer. */
  rows: number;
  /** Groups whose write failed and whose rows were written again one by one. */
  retriedGroups: number;
}

export interface GroupWriter<Row, Result> {
  write(row: Row): Promise<Result>;
  readonly stats: Readonly<GroupCommitStats>;
}

interface Waiting<Row, Result> {
  readonly row: Row;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: unknown) => void;
}

const DEFAULT_MAX_ROWS = 64;
const DEFAULT_MAX_IN_FLIGHT = 2;

export function groupCommit<Row, Result>(
  options: GroupCommitOptions<Row, Result>,
): GroupWriter<Row, Result> {
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const stats: GroupCommitStats = { writes: 0, rows: 0, retriedGroups: 0 };
  let pending: Waiting<Row, Result>[] = [];
  let inFlight = 0;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || inFlight >= maxInFlight || pending.length === 0) return;
    scheduled = true;
    setImmediate(drain);
  };

  function drain(): void {
    scheduled = false;
    while (inFlight < maxInFlight && pending.length > 0) {
      const group = pending.length <= maxRows ? pending : pending.slice(0, maxRows);
      pending = pending.length <= maxRows ? [] : pending.slice(maxRows);
      inFlight += 1;
      void flush(group).finally(() => {
        inFlight -= 1;
        schedule();
      });
    }
  }

  async function flush(group: readonly Waiting<Row, Result>[]): Promise<void> {
    stats.rows += group.length;
    const [only] = group;
    if (only !== undefined && group.length === 1) {
      stats.writes += 1;
      await options.writeOne(only.row).then(only.resolve, only.reject);
      return;
    }
    let results: readonly Result[];
    try {
      stats.writes += 1;
      results = await options.writeGroup(group.map((waiting) => waiting.row));
      if (results.length !== group.length) {
        throw new Error(`a group of ${group.length} rows was answered ${results.length} results`);
      }
    } catch {
      // Nothing of the group was written: each row alone, so only a bad one fails its caller
      // (and when the database itself failed, each caller gets its own error from it).
      stats.retriedGroups += 1;
      stats.writes += group.length;
      await Promise.all(
        group.map((waiting) => options.writeOne(waiting.row).then(waiting.resolve, waiting.reject)),
      );
      return;
    }
    group.forEach((waiting, i) => {
      waiting.resolve(results[i] as Result);
    });
  }

  return {
    write: (row) =>
      new Promise<Result>((resolve, reject) => {
        pending.push({ row, resolve, reject });
        schedule();
      }),
    stats,
  };
}
