import { describe, expect, it } from 'vitest';
import {
  BASE,
  boundClientId,
  change,
  create,
  created,
  DAI_BASE,
  DEFAULT_POLICY,
  deactivate,
  evmSession,
  getOwn,
  KYT_POLICY,
  lookup,
  payoutLookup,
  setupDestinationsApp,
  TRON,
  tronSession,
  USDC_BASE,
  USDT_TRON,
  validationErrors,
  writesNothing,
} from '../../test/payee-destinations-v1.ts';

/**
 * The /v1/payee-destination routes of the auth API, called with sessions opened the real way
 * (test/payee-destinations-v1.ts): creating and changing a destination, for EVM and Tron
 * wallets, and what is refused with nothing written.
 */

setupDestinationsApp();

describe('POST /v1/payee-destination', () => {
  it('creates the session wallet’s destination (201) with the default access policy', async () => {
    const payee = await evmSession();
    const res = await create(payee, { tokenAddress: USDC_BASE.toLowerCase(), chainId: BASE });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    const checksum = /#([0-9A-F]{8}):/.exec(body.destinationId)?.[1];
    expect(checksum).toBeDefined();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      destinationId: `${payee.address}@eip155:8453#${checksum}:${USDC_BASE}`,
      walletAddress: payee.address,
      walletType: 'eoa',
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: DEFAULT_POLICY,
      // ERC-7930 v1: version 0001, eip155 0000, 2-byte chain ref 0x2105, 20-byte address.
      binaryInteropAddress: `0x0001000002210514${payee.address.slice(2).toLowerCase()}`,
      humanReadableInteropAddress: `${payee.address}@eip155:8453#${checksum}`,
      claimed: true,
      active: true,
      createdAt: expect.any(String),
    });
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
    expect((await getOwn(payee)).json()).toEqual(body);
  });

  it('stores a KYT access policy and returns it', async () => {
    const payee = await evmSession();
    const body = await created(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: {
        mode: 'kyt_all_wallets',
        screeningProvider: 'hypernative',
        hideUntilApproved: true,
      },
    });
    expect(body.accessPolicy).toEqual(KYT_POLICY);
    expect((await getOwn(payee)).json().accessPolicy).toEqual(KYT_POLICY);
  });

  it.each([
    [{ mode: 'off' }, DEFAULT_POLICY],
    [
      { mode: 'off', screeningProvider: null, hidePayeeAddress: true },
      { ...DEFAULT_POLICY, hidePayeeAddress: true },
    ],
    [{}, DEFAULT_POLICY],
    [
      { mode: 'kyt_all_wallets', screeningProvider: 'merklescience' },
      { ...DEFAULT_POLICY, mode: 'kyt_all_wallets', screeningProvider: 'merklescience' },
    ],
  ])('accepts access policy %j as %j', async (accessPolicy, stored) => {
    const payee = await evmSession();
    const body = await created(payee, { tokenAddress: USDC_BASE, chainId: BASE, accessPolicy });
    expect(body.accessPolicy).toEqual(stored);
  });

  it.each([
    [{ mode: 'kyt_all_wallets' }, 'is required when mode is kyt_all_wallets'],
    [
      { mode: 'kyt_all_wallets', screeningProvider: null },
      'is required when mode is kyt_all_wallets',
    ],
    [{ mode: 'off', screeningProvider: 'hypernative' }, 'must be null or omitted when mode is off'],
    // mode defaults to off, so a provider alone is refused too.
    [{ screeningProvider: 'merklescience' }, 'must be null or omitted when mode is off'],
  ])('refuses access policy %j: screeningProvider %s', async (accessPolicy, message) => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: USDC_BASE, chainId: BASE, accessPolicy }),
    );
    expect(validationErrors(res)).toEqual([{ field: 'accessPolicy.screeningProvider', message }]);
    expect((await getOwn(payee)).json()).toBeNull();
  });

  it.each([
    ['mode inherit (links only)', { mode: 'inherit' }, 'accessPolicy.mode'],
    [
      'an unknown provider',
      { mode: 'kyt_all_wallets', screeningProvider: 'chainalysis' },
      'accessPolicy.screeningProvider',
    ],
    [
      'a non-boolean hideUntilApproved',
      { hideUntilApproved: 'yes' },
      'accessPolicy.hideUntilApproved',
    ],
  ])('refuses an access policy with %s as a schema error', async (_case, accessPolicy, field) => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: USDC_BASE, chainId: BASE, accessPolicy }),
    );
    expect(validationErrors(res).map((e) => e.field)).toContain(field);
  });

  it('creating another token ends the first; re-creating the first reactivates its record', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const second = await created(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(second.destinationId).not.toBe(first.destinationId);
    expect((await getOwn(payee)).json()).toMatchObject({ id: second.id, active: true });
    expect((await lookup(payee, first.destinationId)).json().active).toBe(false);

    const again = await created(payee);
    expect(again).toMatchObject({ id: first.id, destinationId: first.destinationId, active: true });
    expect((await lookup(payee, second.destinationId)).json().active).toBe(false);
  });

  it('re-creating the active destination updates its policy in place; an omitted policy is the default', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const kyt = await created(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: {
        mode: 'kyt_all_wallets',
        screeningProvider: 'hypernative',
        hideUntilApproved: true,
      },
    });
    expect(kyt).toMatchObject({ id: first.id, accessPolicy: KYT_POLICY, active: true });
    const reset = await created(payee);
    expect(reset).toMatchObject({ id: first.id, accessPolicy: DEFAULT_POLICY });
  });

  it('refuses a bad body without ending the active destination or moving its client IDs', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    await boundClientId(payee, first.destinationId);
    const res = await writesNothing(() =>
      create(payee, {
        tokenAddress: DAI_BASE,
        chainId: BASE,
        accessPolicy: { mode: 'kyt_all_wallets' },
      }),
    );
    expect(validationErrors(res).map((e) => e.field)).toEqual(['accessPolicy.screeningProvider']);
    expect((await getOwn(payee)).json()).toEqual(first);
  });

  it('refuses an unknown chain id', async () => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: USDC_BASE, chainId: 999999 }),
    );
    expect(validationErrors(res)).toEqual([
      { field: 'chainId', message: expect.stringMatching(/^is not a supported chain \(.*8453/) },
    ]);
  });

  it('refuses a token that is not a supported currency on the chain', async () => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: '0x1111111111111111111111111111111111111111', chainId: BASE }),
    );
    expect(validationErrors(res)).toEqual([
      { field: 'tokenAddress', message: 'is not a supported token on base' },
    ]);
  });

  it.each([
    ['malformed', '0x1234'],
    ['a Tron address', USDT_TRON],
  ])('refuses a %s token on an EVM chain', async (_case, tokenAddress) => {
    const payee = await evmSession();
    const res = await writesNothing(() => create(payee, { tokenAddress, chainId: BASE }));
    expect(validationErrors(res)).toEqual([
      { field: 'tokenAddress', message: 'must be a valid EVM address' },
    ]);
  });

  it('refuses the Tron chain for an EVM wallet', async () => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: USDT_TRON, chainId: TRON }),
    );
    expect(validationErrors(res)).toEqual([
      {
        field: 'chainId',
        message: 'is a Tron network; sign in with a Tron wallet to receive on it',
      },
    ]);
  });

  it.each([
    ['tokenAddress', { chainId: BASE }, 'is required'],
    ['chainId', { tokenAddress: USDC_BASE }, 'is required'],
  ])('refuses a body with %s %s', async (field, payload, message) => {
    const payee = await evmSession();
    const res = await writesNothing(() => create(payee, payload));
    expect(validationErrors(res)).toContainEqual({ field, message });
  });

  it('refuses a chain id sent as a string (bodies are not coerced)', async () => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: USDC_BASE, chainId: '8453' }),
    );
    expect(validationErrors(res)).toContainEqual(expect.objectContaining({ field: 'chainId' }));
  });
});

describe('Tron wallets', () => {
  it('sign in with Tron message signing and create a Tron destination', async () => {
    const payee = await tronSession();
    expect(payee.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const body = await created(payee, { tokenAddress: USDT_TRON, chainId: TRON });
    expect(body.destinationId).toMatch(
      new RegExp(`^${payee.address}@eip155:728126428#[0-9A-F]{8}:${USDT_TRON}$`),
    );
    expect(body).toMatchObject({
      walletAddress: payee.address,
      tokenAddress: USDT_TRON,
      chainId: TRON,
      accessPolicy: DEFAULT_POLICY,
      claimed: true,
      active: true,
    });
    expect(body.binaryInteropAddress).toMatch(/^0x00010000042b6653dc14[0-9a-f]{40}$/);
    expect((await getOwn(payee)).json()).toEqual(body);

    const payer = await evmSession();
    expect((await payoutLookup(payer, payee.address)).json()).toEqual({
      destinationId: body.destinationId,
      walletAddress: payee.address,
      tokenAddress: USDT_TRON,
      chainId: TRON,
      claimed: true,
    });
  });

  it('refuse an EVM chain for a Tron wallet', async () => {
    const payee = await tronSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: USDC_BASE, chainId: BASE }),
    );
    expect(validationErrors(res)).toEqual([
      {
        field: 'chainId',
        message: 'is an EVM network; sign in with an EVM wallet to receive on it',
      },
    ]);
  });
});

describe('PUT /v1/payee-destination', () => {
  it('answers 404 when the wallet has no active destination', async () => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      change(payee, { tokenAddress: USDC_BASE, chainId: BASE }),
    );
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'No active payee destination',
      code: 'no_active_destination',
    });
    expect((await getOwn(payee)).json()).toBeNull();
  });

  it('answers 404 after the active destination was deactivated', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    expect((await deactivate(payee, first.destinationId)).statusCode).toBe(200);
    const res = await writesNothing(() => change(payee, { tokenAddress: DAI_BASE, chainId: BASE }));
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe('No active payee destination');
  });

  it('moves the active destination to another token and keeps the policy when none is sent', async () => {
    const payee = await evmSession();
    const first = await created(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: {
        mode: 'kyt_all_wallets',
        screeningProvider: 'hypernative',
        hideUntilApproved: true,
      },
    });
    const res = await change(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(res.statusCode, res.body).toBe(200);
    const moved = res.json();
    expect(moved).toMatchObject({
      tokenAddress: DAI_BASE,
      accessPolicy: KYT_POLICY,
      active: true,
      claimed: true,
    });
    expect(moved.id).not.toBe(first.id);
    expect((await lookup(payee, first.destinationId)).json().active).toBe(false);
    expect((await getOwn(payee)).json()).toEqual(moved);
  });

  it('replaces the policy when one is sent, on the same destination', async () => {
    const payee = await evmSession();
    const first = await created(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: { mode: 'kyt_all_wallets', screeningProvider: 'hypernative' },
    });
    const res = await change(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: { mode: 'off', hidePayeeAddress: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: first.id,
      accessPolicy: { ...DEFAULT_POLICY, hidePayeeAddress: true },
    });
  });

  it('applies the access policy rules and changes nothing when they fail', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const res = await writesNothing(() =>
      change(payee, {
        tokenAddress: DAI_BASE,
        chainId: BASE,
        accessPolicy: { mode: 'kyt_all_wallets' },
      }),
    );
    expect(validationErrors(res)).toEqual([
      {
        field: 'accessPolicy.screeningProvider',
        message: 'is required when mode is kyt_all_wallets',
      },
    ]);
    expect((await getOwn(payee)).json()).toEqual(first);
  });

  it('refuses an unknown chain id', async () => {
    const payee = await evmSession();
    await created(payee);
    const res = await writesNothing(() =>
      change(payee, { tokenAddress: USDC_BASE, chainId: 999999 }),
    );
    expect(validationErrors(res).map((e) => e.field)).toEqual(['chainId']);
  });
});
