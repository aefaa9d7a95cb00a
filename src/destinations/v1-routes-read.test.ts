import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { createTenant } from '../../test/fixtures.ts';
import {
  addViaV2,
  BASE,
  created,
  DAI_BASE,
  deactivate,
  emailSession,
  evmSession,
  freshKey,
  getOwn,
  lookup,
  payoutLookup,
  setupDestinationsApp,
  t,
  USDC_BASE,
  validationErrors,
  WALLET_REQUIRED,
  writesNothing,
} from '../../test/payee-destinations-v1.ts';
import { issueApiKey } from '../auth/api-keys.ts';
import { activateDestination, deactivateDestination } from './destinations.ts';
import { resolveTarget } from './target.ts';

/**
 * The /v1/payee-destination routes that read and deactivate: the session's own destination, the
 * payout and destination lookups, deactivation, and who may call them (a session without a
 * wallet, other credentials).
 */

setupDestinationsApp();

describe('GET /v1/payee-destination', () => {
  it('answers null for a wallet without an active destination', async () => {
    const payee = await evmSession();
    const res = await getOwn(payee);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('null');
  });
});

describe('a session without a wallet', () => {
  it.each(['POST', 'PUT', 'GET'] as const)(
    'gets 400 A wallet session is required on %s',
    async (method) => {
      const user = await emailSession();
      const res = await writesNothing(() =>
        t.app.inject({
          method,
          url: '/v1/payee-destination',
          headers: user.headers,
          ...(method !== 'GET' && { payload: { tokenAddress: USDC_BASE, chainId: BASE } }),
        }),
      );
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ statusCode: 400, error: 'Bad Request', ...WALLET_REQUIRED });
    },
  );

  it('may look up and deactivate its account’s destinations (made with its API key on /v2)', async () => {
    const user = await emailSession();
    const { apiKey } = await issueApiKey(t.db, user.accountId, 'shop');
    const owner = privateKeyToAccount(freshKey());
    const added = await addViaV2(owner, apiKey, USDC_BASE);
    const found = await lookup(user, added.destinationId);
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json()).toMatchObject({
      id: added.id,
      walletAddress: owner.address,
      active: true,
    });
    expect((await deactivate(user, added.destinationId)).statusCode).toBe(200);
    const after = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination?walletAddress=${owner.address}`,
      headers: { 'x-api-key': apiKey },
    });
    expect(after.json()).toBeNull();
  });
});

describe('credentials', () => {
  it('answers 401 without a session', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/payee-destination' });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('missing_credentials');
  });

  it('answers 401 for an unknown session token', async () => {
    const res = await getOwn({
      headers: { authorization: 'Bearer nope' },
      accountId: '',
      address: '',
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('invalid_session');
  });

  it('answers 403 for an API key, even the wallet account’s own', async () => {
    const payee = await evmSession();
    const { apiKey } = await issueApiKey(t.db, payee.accountId);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/payee-destination',
      headers: { 'x-api-key': apiKey },
      payload: { tokenAddress: USDC_BASE, chainId: BASE },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('credential_not_accepted');
  });
});

describe('GET /v1/payee-destination/payout-lookup', () => {
  it('finds a recipient’s active destination from another account’s session, any case', async () => {
    const recipient = await evmSession();
    const destination = await created(recipient);
    const payer = await evmSession();
    for (const spelling of [recipient.address, recipient.address.toLowerCase()]) {
      const res = await payoutLookup(payer, spelling);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        destinationId: destination.destinationId,
        walletAddress: recipient.address,
        tokenAddress: USDC_BASE,
        chainId: BASE,
        claimed: true,
      });
    }
    // A payer who signed in by e-mail may ask too.
    const emailPayer = await emailSession();
    expect((await payoutLookup(emailPayer, recipient.address)).json()).toMatchObject({
      destinationId: destination.destinationId,
    });
  });

  it('answers null for a wallet without an active destination', async () => {
    const recipient = await evmSession();
    const payer = await evmSession();
    expect((await payoutLookup(payer, recipient.address)).body).toBe('null');
    const destination = await created(recipient);
    expect((await deactivate(recipient, destination.destinationId)).statusCode).toBe(200);
    const res = await payoutLookup(payer, recipient.address);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('null');
  });

  it('prefers the destination the wallet set itself over one set in a merchant’s account', async () => {
    const recipient = await evmSession();
    const own = await created(recipient);
    const merchant = await createTenant(t.db, 'Merchant');
    const target = resolveTarget(t.chains, {
      walletAddress: recipient.address,
      chainId: BASE,
      tokenAddress: DAI_BASE,
    });
    const theirs = await activateDestination(t.db, t.clock, merchant.accountId, target);
    const payer = await evmSession();
    expect((await payoutLookup(payer, recipient.address)).json().destinationId).toBe(
      own.destinationId,
    );
    // Once the wallet's own ends, the merchant's (which the wallet also signed for) answers.
    await deactivate(recipient, own.destinationId);
    expect((await payoutLookup(payer, recipient.address)).json().destinationId).toBe(
      theirs.destinationId,
    );
    await deactivateDestination(t.db, t.clock, theirs);
    expect((await payoutLookup(payer, recipient.address)).json()).toBeNull();
  });

  it('refuses a malformed wallet address', async () => {
    const payer = await evmSession();
    expect(validationErrors(await payoutLookup(payer, '0x1234'))).toEqual([
      {
        field: 'walletAddress',
        message: 'must be an EVM address (0x followed by 40 hex digits) or a Tron address (T…)',
      },
    ]);
  });

  it('requires walletAddress', async () => {
    const payer = await evmSession();
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/payee-destination/payout-lookup',
      headers: payer.headers,
    });
    expect(validationErrors(res)).toEqual([{ field: 'walletAddress', message: 'is required' }]);
  });
});

describe('GET /v1/payee-destination/lookup', () => {
  it('returns a destination of the account, active or not', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const found = await lookup(payee, first.destinationId);
    expect(found.statusCode).toBe(200);
    expect(found.json()).toEqual(first);
    await created(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect((await lookup(payee, first.destinationId)).json()).toEqual({ ...first, active: false });
  });

  it('accepts the id with a lower-case wallet', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const spelled = first.destinationId.replace(payee.address, payee.address.toLowerCase());
    expect((await lookup(payee, spelled)).json().id).toBe(first.id);
  });

  it('answers 404 to another account’s session', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const other = await evmSession();
    const res = await lookup(other, first.destinationId);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'Payee destination not found',
      code: 'destination_not_found',
    });
  });

  it.each([
    ['garbage', 'not-a-destination'],
    ['a wrong checksum', `${USDC_BASE}@eip155:8453#00000000:${USDC_BASE}`],
  ])('answers 400 Invalid destination ID format for %s', async (_case, id) => {
    const payee = await evmSession();
    const res = await lookup(payee, id);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'Invalid destination ID format',
      code: 'invalid_destination_id',
    });
  });

  it('requires destinationId', async () => {
    const payee = await evmSession();
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/payee-destination/lookup',
      headers: payee.headers,
    });
    expect(validationErrors(res)).toEqual([{ field: 'destinationId', message: 'is required' }]);
  });
});

describe('PATCH /v1/payee-destination/deactivate', () => {
  it('deactivates and keeps the record; again is still a success', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const res = await deactivate(payee, first.destinationId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Payee destination deactivated' });
    expect((await getOwn(payee)).json()).toBeNull();
    expect((await lookup(payee, first.destinationId)).json()).toEqual({ ...first, active: false });
    expect((await deactivate(payee, first.destinationId)).json()).toEqual({
      success: true,
      message: 'Payee destination deactivated',
    });
    // Creating it again reactivates the same record.
    expect(await created(payee)).toMatchObject({ id: first.id, active: true });
  });

  it('answers 404 to another account’s session and leaves the destination active', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const other = await evmSession();
    const res = await writesNothing(() => deactivate(other, first.destinationId));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      message: 'Payee destination not found',
      code: 'destination_not_found',
    });
    expect((await getOwn(payee)).json()).toMatchObject({ id: first.id, active: true });
  });

  it('answers 400 for a malformed id and for a body without one', async () => {
    const payee = await evmSession();
    const malformed = await writesNothing(() => deactivate(payee, 'base:0x1:0x2'));
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().message).toBe('Invalid destination ID format');
    const missing = await t.app.inject({
      method: 'PATCH',
      url: '/v1/payee-destination/deactivate',
      headers: payee.headers,
      payload: {},
    });
    expect(validationErrors(missing)).toEqual([{ field: 'destinationId', message: 'is required' }]);
  });
});
