import { getAddress, isAddress } from 'viem';
import { AppError } from '../base/errors.ts';
import type { OfframpConfig } from '../config/offramp.ts';

/**
 * The off-ramp provider's REST API, as a liquidation provider shapes it: `POST /v0/transfers`
 * (`Api-Key`, `Idempotency-Key`) with the source (rail, currency, amount) and the destination
 * (the bank account's id at the provider) answers the transfer's `id`, `state` and
 * `source_deposit_instructions.to_address`, the address the payer pays. The same idempotency
 * key answers the same transfer, so a retried `/pay` never creates a second one. Failures are
 * `offramp_unavailable` (try again) or `offramp_refused`; messages never carry the URL or key.
 */

interface TransferOrder {
  /** Ours: the same key gives back the same transfer. */
  readonly idempotencyKey: string;
  /** The provider's rail name of the network (networks.ts). */
  readonly rail: string;
  /** Lower-case token symbol: `usdc`. */
  readonly currency: string;
  /** Human-readable amount of the token. */
  readonly amount: string;
  /** The bank account at the provider. */
  readonly externalAccountId: string;
  /** Ours, echoed in its callbacks: the request's id. */
  readonly clientReferenceId: string;
}

interface CreatedTransfer {
  readonly id: string;
  readonly depositAddress: string;
}

export interface OfframpProvider {
  createTransfer(order: TransferOrder): Promise<CreatedTransfer>;
}

export function createOfframpProvider(
  config: Pick<OfframpConfig, 'url' | 'apiKey' | 'timeoutMs'> & { readonly url: string },
  fetcher: typeof fetch = fetch,
): OfframpProvider {
  return {
    async createTransfer(order) {
      let response: Response;
      try {
        response = await fetcher(`${config.url}/v0/transfers`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'idempotency-key': order.idempotencyKey,
            ...(config.apiKey && { 'api-key': config.apiKey.reveal() }),
          },
          body: JSON.stringify({
            amount: order.amount,
            client_reference_id: order.clientReferenceId,
            source: { payment_rail: order.rail, currency: order.currency },
            destination: { external_account_id: order.externalAccountId },
          }),
          signal: AbortSignal.timeout(config.timeoutMs),
        });
      } catch (error) {
        const timedOut = error instanceof Error && error.name === 'TimeoutError';
        throw unavailable(
          timedOut ? `did not answer within ${config.timeoutMs} ms` : 'could not be reached',
          error,
        );
      }
      if (response.status >= 400 && response.status < 500 && response.status !== 429) {
        await response.body?.cancel();
        throw new AppError(
          'offramp_refused',
          `The off-ramp provider refused the transfer (HTTP ${response.status})`,
        );
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw unavailable(`answered HTTP ${response.status}`);
      }
      const body: unknown = await response.json().catch(() => null);
      const created = transferOf(body);
      if (!created) throw unavailable('gave an answer that is not one');
      return created;
    },
  };
}

function unavailable(reason: string, cause?: unknown): AppError {
  return new AppError(
    'offramp_unavailable',
    `The off-ramp provider ${reason}; try again shortly`,
    cause === undefined ? {} : { cause },
  );
}

function transferOf(body: unknown): CreatedTransfer | null {
  if (typeof body !== 'object' || body === null) return null;
  const id = 'id' in body ? body.id : undefined;
  const instructions =
    'source_deposit_instructions' in body ? body.source_deposit_instructions : undefined;
  const to =
    typeof instructions === 'object' && instructions !== null && 'to_address' in instructions
      ? instructions.to_address
      : undefined;
  if (typeof id !== 'string' || id === '' || id.length > 200) return null;
  if (typeof to !== 'string' || !isAddress(to, { strict: false })) return null;
  return { id, depositAddress: getAddress(to) };
}
