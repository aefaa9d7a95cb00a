import type { Database } from '../db/client.ts';
import type { MatchedPayment } from './record.ts';
import type { ContractLog, LogWatcher } from './types.ts';

/**
 * The matched payments as the watchers judge them (types.ts, `LogWatcher.settles`): a payment
 * a watcher refuses is left out, one it vouches for counts what it says and names its payer;
 * the others are as matched. Each watcher sees only its own contracts' logs.
 */
export async function settledByWatchers(
  db: Database,
  watchers: readonly LogWatcher[],
  matched: readonly MatchedPayment[],
  logs: readonly ContractLog[],
): Promise<MatchedPayment[]> {
  let judged: MatchedPayment[] = [...matched];
  for (const watcher of watchers) {
    if (!watcher.settles || judged.length === 0) continue;
    const mine = new Set(watcher.addresses.map((a) => a.toLowerCase()));
    const own = logs.filter((log) => mine.has(log.address.toLowerCase()));
    const answers = await watcher.settles(
      db,
      judged.map((m) => ({ event: m.event, requestId: m.request.requestId })),
      own,
    );
    judged = judged.flatMap((m, i) => {
      const answer = answers[i];
      if (answer === undefined) return [m];
      if (answer === null) return [];
      return [
        {
          ...m,
          requestAmount: answer.requestAmount,
          ...(answer.payer !== null && { payer: answer.payer }),
        },
      ];
    });
  }
  return judged;
}
