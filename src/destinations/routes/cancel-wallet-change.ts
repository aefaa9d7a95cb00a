import { Type } from 'typebox';
import { AppError } from '../../base/errors.ts';
import type { App } from '../../http/types.ts';
import { AUTH, TAGS } from '../v1-schemas.ts';

export const WALLET_CHANGE_NOT_FOUND_MESSAGE = 'No pending wallet change with this changeRequestId';

/**
 * The Auth API's `PATCH /v1/payee-destination/wallet-change/cancel`. In the reference a wallet
 * change waits while a Safe's owners sign it (`pendingWalletChange.status`
 * `pending_signatures`); here `PUT /v1/payee-destination` changes an EOA destination at once,
 * so no change is ever pending and every `changeRequestId` is unknown: the route checks the
 * body and answers 404 `wallet_change_not_found`, the same to every account, until Safe
 * destinations bring changes that wait.
 */
export function registerCancelWalletChange(app: App): void {
  app.patch(
    '/v1/payee-destination/wallet-change/cancel',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Cancel a pending wallet change of the session’s destination',
        description:
          'Destination changes take effect at once here (EOA wallets), so none is ever pending: any changeRequestId answers 404 wallet_change_not_found.',
        body: Type.Object(
          { changeRequestId: Type.String({ minLength: 1, maxLength: 256 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String() }),
          404: { description: 'No such pending wallet change', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async () => {
      throw new AppError('wallet_change_not_found', WALLET_CHANGE_NOT_FOUND_MESSAGE);
    },
  );
}
