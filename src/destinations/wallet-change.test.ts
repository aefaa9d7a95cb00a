import { describe, expect, it } from 'vitest';
import {
  BASE,
  change,
  created,
  DAI_BASE,
  emailSession,
  evmSession,
  getOwn,
  type Session,
  setupDestinationsApp,
  t,
  validationErrors,
  writesNothing,
} from '../../test/payee-destinations-v1.ts';
import { WALLET_CHANGE_NOT_FOUND_MESSAGE } from './routes/cancel-wallet-change.ts';

/**
 * `PATCH /v1/payee-destination/wallet-change/cancel` on the real app. A change here takes effect
 * at once (no Safe signatures to wait for), so none is ever pending: every id is unknown, and
 * the route says so without touching anything.
 */

setupDestinationsApp();

function cancel(session: Session | { headers: Record<string, string> }, payload: unknown) {
  return t.app.inject({
    method: 'PATCH',
    url: '/v1/payee-destination/wallet-change/cancel',
    headers: session.headers,
    payload: payload as object,
  });
}

describe('PATCH /v1/payee-destination/wallet-change/cancel', () => {
  it('answers 404 wallet_change_not_found after a change, which took effect at once', async () => {
    const session = await evmSession();
    const first = await created(session);
    const changed = await change(session, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(changed.statusCode, changed.body).toBe(200);
    // Nothing waits: the destination is already the new one, with no pending change.
    const own = (await getOwn(session)).json();
    expect(own.destinationId).toBe(changed.json().destinationId);
    expect(own.destinationId).not.toBe(first.destinationId);
    expect(own.pendingWalletChange ?? null).toBeNull();
    for (const changeRequestId of [first.id, changed.json().id, 'wcr_unknown']) {
      const res = await writesNothing(() => cancel(session, { changeRequestId }));
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toMatchObject({
        statusCode: 404,
        code: 'wallet_change_not_found',
        message: WALLET_CHANGE_NOT_FOUND_MESSAGE,
      });
    }
    expect((await getOwn(session)).json()).toEqual(own);
  });

  it('answers an e-mail session the same', async () => {
    const res = await cancel(await emailSession(), { changeRequestId: 'x' });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('wallet_change_not_found');
  });

  it.each([
    ['no body field', {}, 'changeRequestId'],
    ['an empty id', { changeRequestId: '' }, 'changeRequestId'],
    ['an id of 257 characters', { changeRequestId: 'x'.repeat(257) }, 'changeRequestId'],
  ])('answers 400 for %s', async (_name, payload, field) => {
    const session = await emailSession();
    const res = await writesNothing(() => cancel(session, payload));
    expect(JSON.stringify(validationErrors(res))).toContain(field);
  });

  it('takes a session only', async () => {
    expect((await cancel({ headers: {} }, { changeRequestId: 'x' })).statusCode).toBe(401);
  });
});
