import type { Clock } from '../base/clock.ts';
import { ulid } from '../base/ulid.ts';
import type { CreatedLink, LinkCaller } from './link-caller.ts';

/**
 * What every way of creating a link shares once its inputs are checked (a link, a payout
 * link, a batch payout link, a multicall parent): a token minted at the clock's now, the link
 * written under it by its creator, and the answer naming the link's page.
 */

/** The page where a link is paid. */
export function securePaymentUrl(payUrl: string, token: string): string {
  return `${payUrl}/?token=${token}`;
}

/** A link about to be written: its token, the time it is created at, and who creates it. */
export interface LinkDraft {
  readonly token: string;
  readonly now: Date;
  readonly caller: LinkCaller;
}

/** Link tokens are ULIDs of their creation time, so they sort as the links were made. */
export function draftLink(clock: Clock, caller: LinkCaller): LinkDraft {
  const now = clock.now();
  return { token: ulid(now.getTime()), now, caller };
}

/**
 * A new link: drafted, written by `write` (the link and its requests, in one statement or one
 * transaction, answering the request ids), and answered with its token and page.
 */
export async function mintLink(
  deps: { readonly clock: Clock; readonly payUrl: string },
  caller: LinkCaller,
  write: (draft: LinkDraft) => Promise<string[]>,
): Promise<CreatedLink> {
  const draft = draftLink(deps.clock, caller);
  return createdLink(deps.payUrl, draft.token, await write(draft));
}

/** The answer naming a link written under `token`. */
export function createdLink(payUrl: string, token: string, requestIds: string[]): CreatedLink {
  return { token, securePaymentUrl: securePaymentUrl(payUrl, token), requestIds };
}
