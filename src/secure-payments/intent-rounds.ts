import type { Logger } from 'pino';

/** Intents read per query; a round reads them all, page by page. */
const PAGE = 100;

/**
 * One round of an intent tracker: every intent `page` gives (in id order, after the last id
 * of the previous page), each handed to `track`. One intent whose read fails is logged with
 * `failure` and left for the next round; it never holds up the others. Resolves false: a
 * round always reaches the end.
 */
export async function roundOverIntents<
  T extends { readonly id: string; readonly network: string },
>(deps: {
  readonly logger: Logger;
  readonly page: (after: string | null, limit: number) => Promise<readonly T[]>;
  readonly track: (intent: T) => Promise<void>;
  readonly failure: string;
}): Promise<boolean> {
  let after: string | null = null;
  for (;;) {
    const intents = await deps.page(after, PAGE);
    for (const intent of intents) {
      try {
        await deps.track(intent);
      } catch (error) {
        deps.logger.warn(
          { err: error, intentId: intent.id, network: intent.network },
          deps.failure,
        );
      }
    }
    const last = intents.at(-1);
    if (!last || intents.length < PAGE) return false;
    after = last.id;
  }
}
