import type { Database } from '../db/client.ts';
import { type AttemptRecord, recordAttempts } from './claims.ts';

/**
 * While sends are out, finished attempts are recorded once this many wait (or after
 * `RECORD_WAIT_MS`): a statement costs a round trip, a plan and a commit whatever its size.
 */
const RECORD_BATCH = 100;
/**
 * Finished attempts wait this long at most for others to be recorded with, while sends are
 * still out (a receiver slow to answer holds its slot for up to the timeout).
 */
const RECORD_WAIT_MS = 100;
/** Records at once at a burst's end (the queue pool keeps a connection for the claim). */
const MAX_RECORDS = 2;

export interface Recorder {
  /** Finished attempts not yet handed to a record. */
  readonly waiting: number;
  push(record: AttemptRecord): void;
  /** Records what waits, now or once a batch has gathered (as the sends' state says). */
  flush(): void;
}

/**
 * The started dispatcher's records of finished attempts, in batches: fewer, larger writes
 * while sends are still out, everything at once at a burst's end. `write` runs each record
 * beside the sends (the dispatcher counts it, and logs a failure: the rows then keep their
 * leases and are sent again after).
 */
export function createRecorder(deps: {
  readonly db: Database;
  readonly write: (what: string, run: () => Promise<void>) => void;
  /** Sends in flight, and whether the burst is ending (nothing queued, no claim coming). */
  readonly sends: () => { readonly inFlight: number; readonly ending: boolean };
  /** Called when nothing waits to be recorded. */
  readonly onIdle: () => void;
}): Recorder {
  let finished: AttemptRecord[] = [];
  let timer: NodeJS.Timeout | undefined;
  /** What finished has waited `RECORD_WAIT_MS` for a batch: it is recorded as it is. */
  let waited = false;
  let recordings = 0;

  const flush = () => {
    if (finished.length === 0) return deps.onIdle();
    const { inFlight, ending } = deps.sends();
    if (inFlight > 0 && !ending && !waited && finished.length < RECORD_BATCH) {
      timer ??= setTimeout(() => {
        timer = undefined;
        waited = true;
        flush();
      }, RECORD_WAIT_MS);
      return;
    }
    // One record at a time while the queue still feeds sends: its work overlaps theirs. At a
    // burst's end, what finished is recorded at once, beside a record still running, so the
    // last sends wait for a statement of their own size, not for the one before as well.
    if (recordings >= (ending ? MAX_RECORDS : 1)) return;
    clearTimeout(timer);
    timer = undefined;
    const batch = finished;
    finished = [];
    waited = false;
    recordings += 1;
    deps.write('recording webhook attempts', async () => {
      try {
        await recordAttempts(deps.db, batch);
      } finally {
        recordings -= 1;
        flush();
      }
    });
  };

  return {
    get waiting() {
      return finished.length;
    },
    push(record) {
      finished.push(record);
    },
    flush,
  };
}
