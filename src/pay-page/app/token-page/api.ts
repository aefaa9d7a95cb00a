import { ApiError, answerOf, unreachable } from '../answer.ts';
import type { PageConfig } from '../config.ts';

/**
 * The API client of a page reached by a pay token (a recurring payout's, a commerce
 * payment's): the view by its token, and the reads and posts of its wallet steps, each an
 * ApiError with the service's code and words when refused.
 */

export type ViewState<V> =
  | { readonly kind: 'found'; readonly view: V }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'error'; readonly message: string };

/** A wallet call as the API gives it: the value as a BigNumber's hex. */
export interface WalletCall {
  readonly to: `0x${string}`;
  readonly data: `0x${string}`;
  readonly value: { readonly hex: `0x${string}` };
}

export interface TokenClient {
  view<V>(token: string): Promise<ViewState<V>>;
  /** `GET <base>/<token><rest>`. */
  get<T>(token: string, rest: string): Promise<T>;
  /** `POST <base>/<token><rest>` with a JSON body. */
  post(token: string, rest: string, body: object): Promise<void>;
  /** The `transactions` of an answer (`GET <base>/<token><rest>`). */
  transactions(token: string, rest: string): Promise<readonly WalletCall[]>;
}

/** `base`: the routes' path up to the token (`/v2/payouts/recurring/token`). */
export function createTokenClient(config: PageConfig, base: string): TokenClient {
  const answer = answerOf(config);
  const headers = { 'x-client-id': config.clientId };
  const path = (token: string, rest: string) => `${base}/${encodeURIComponent(token)}${rest}`;
  const get = <T>(token: string, rest: string) => answer<T>(path(token, rest));
  return {
    async view<V>(token: string): Promise<ViewState<V>> {
      try {
        return { kind: 'found', view: await get<V>(token, '') };
      } catch (error) {
        if (error instanceof ApiError) {
          return error.status === 404
            ? { kind: 'not_found' }
            : { kind: 'error', message: error.message };
        }
        return { kind: 'error', message: unreachable(error) };
      }
    },
    get,
    async post(token, rest, body) {
      await answer(path(token, rest), {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    },
    async transactions(token, rest) {
      return (await get<{ transactions: WalletCall[] }>(token, rest)).transactions;
    },
  };
}
