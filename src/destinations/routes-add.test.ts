import { describe, expect, it } from 'vitest';
import {
  add,
  apiKeyOf,
  BASE,
  clientIdOf,
  DAI_BASE,
  fetchSigningData,
  getActive,
  getOne,
  ID_PATTERN,
  NONCE_ERROR,
  post,
  setupPayeeDestinations,
  sign,
  signed,
  signingData,
  TRON,
  t,
  tenantA,
  tenantB,
  USDC_BASE,
  USDT_TRON,
  wallet,
} from '../../test/payee-destinations.ts';
import { evmToTron } from '../chains/tron-address.ts';

/** Adding a payee destination: the signing data, then the wallet's signed POST. */

setupPayeeDestinations();

describe('GET /v2/payee-destination/signing-data', () => {
  it('returns EIP-712 typed data with a single-use nonce for base USDC on chain 8453', async () => {
    const owner = wallet(0);
    const res = await signingData(
      { walletAddress: owner.address, action: 'add', tokenAddress: USDC_BASE, chainId: BASE },
      clientIdOf(tenantA),
    );
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.nonce).toMatch(/^[0-9a-f]{32}$/);
    const tenMinutesLater = t.clock.now().getTime() + 10 * 60_000;
    expect(body.expiresAt).toBe(new Date(tenMinutesLater).toISOString());
    expect(body.typedData).toEqual({
      domain: { name: 'payreq payee destinations', version: '1', chainId: BASE },
      types: {
        PayeeDestination: [
          { name: 'action', type: 'string' },
          { name: 'walletAddress', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'tokenAddress', type: 'string' },
          { name: 'nonce', type: 'string' },
          { name: 'expiresAt', type: 'uint256' },
        ],
      },
      primaryType: 'PayeeDestination',
      message: {
        action: 'add',
        walletAddress: owner.address,
        chainId: BASE,
        tokenAddress: USDC_BASE,
        nonce: body.nonce,
        expiresAt: tenMinutesLater / 1000,
      },
    });
  });

  it('normalises a lower-case wallet and token to their checksummed form', async () => {
    const owner = wallet(0);
    const res = await signingData({
      walletAddress: owner.address.toLowerCase(),
      action: 'deactivate',
      tokenAddress: USDC_BASE.toLowerCase(),
      chainId: BASE,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().typedData.message).toMatchObject({
      action: 'deactivate',
      walletAddress: owner.address,
      tokenAddress: USDC_BASE,
    });
  });

  it('refuses an unknown chain id', async () => {
    const res = await signingData({
      walletAddress: wallet(0).address,
      action: 'add',
      tokenAddress: USDC_BASE,
      chainId: 999999,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: 'Validation failed', code: 'validation_failed' });
    expect(res.json().errors).toEqual([
      { field: 'chainId', message: expect.stringMatching(/^is not a supported chain \(.*8453/) },
    ]);
  });

  it('refuses a malformed wallet address', async () => {
    const res = await signingData({
      walletAddress: '0x1234',
      action: 'add',
      tokenAddress: USDC_BASE,
      chainId: BASE,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'walletAddress', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
  });

  it('refuses a token that is not a supported currency on the chain', async () => {
    const res = await signingData({
      walletAddress: wallet(0).address,
      action: 'add',
      tokenAddress: '0x1111111111111111111111111111111111111111',
      chainId: BASE,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'tokenAddress', message: 'is not a supported token on base' },
    ]);
  });

  it('refuses a Tron token on an EVM chain', async () => {
    const res = await signingData({
      walletAddress: wallet(0).address,
      action: 'add',
      tokenAddress: USDT_TRON,
      chainId: BASE,
    });
    expect(res.statusCode).toBe(400);
    // The wallet is fine; the token is what is wrong, and the answer says so.
    expect(res.json().errors).toEqual([
      { field: 'tokenAddress', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
  });

  it.each([
    ['walletAddress', { action: 'add', tokenAddress: USDC_BASE, chainId: BASE }],
    ['action', { walletAddress: wallet(0).address, tokenAddress: USDC_BASE, chainId: BASE }],
    ['tokenAddress', { walletAddress: wallet(0).address, action: 'add', chainId: BASE }],
    ['chainId', { walletAddress: wallet(0).address, action: 'add', tokenAddress: USDC_BASE }],
  ])('refuses a query without %s', async (missing, query) => {
    const res = await signingData(query);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual({ field: missing, message: 'is required' });
  });

  it('refuses an action other than add or deactivate', async () => {
    const res = await signingData({
      walletAddress: wallet(0).address,
      action: 'delete',
      tokenAddress: USDC_BASE,
      chainId: BASE,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Validation failed');
  });

  it('answers 401 without credentials', async () => {
    const res = await signingData(
      { walletAddress: wallet(0).address, action: 'add', tokenAddress: USDC_BASE, chainId: BASE },
      {},
    );
    expect(res.statusCode).toBe(401);
  });
});

describe('POST /v2/payee-destination', () => {
  it('adds the destination signed by its wallet (201) with its interop addresses', async () => {
    const owner = wallet(1);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    const res = await post(body);
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    const match = ID_PATTERN.exec(created.destinationId);
    expect(match, created.destinationId).not.toBeNull();
    expect(match?.[1]).toBe(owner.address);
    expect(match?.[3]).toBe(USDC_BASE);
    const checksum = match?.[2];
    expect(created).toMatchObject({
      walletAddress: owner.address,
      tokenAddress: USDC_BASE,
      chainId: BASE,
      network: 'base',
      active: true,
      humanReadableInteropAddress: `${owner.address}@eip155:8453#${checksum}`,
      // ERC-7930 v1: version 0001, eip155 0000, 2-byte chain ref 0x2105, 20-byte address.
      binaryInteropAddress: `0x0001000002210514${owner.address.slice(2).toLowerCase()}`,
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);
  });

  it('works with a client ID as well as an API key', async () => {
    const owner = wallet(2);
    const created = await add(owner, USDC_BASE, clientIdOf(tenantA));
    expect(created.active).toBe(true);
    const seen = await getOne(created.destinationId, apiKeyOf(tenantA));
    expect(seen.statusCode).toBe(200);
  });

  it('refuses a signature by another key; the wallet can still use the nonce', async () => {
    const owner = wallet(3);
    const { typedData, nonce } = await fetchSigningData({
      walletAddress: owner.address,
      action: 'add',
    });
    const res = await post({ signature: await sign(wallet(15), typedData), nonce });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'Signature does not match the wallet address',
      code: 'invalid_signature',
    });
    expect((await getActive(owner.address)).json()).toBeNull();
    expect((await post({ signature: await sign(owner, typedData), nonce })).statusCode).toBe(201);
  });

  it('accepts each nonce once', async () => {
    const owner = wallet(4);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    expect((await post(body)).statusCode).toBe(201);
    const again = await post(body);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ message: NONCE_ERROR, code: 'invalid_nonce' });
  });

  it('lets exactly one of two concurrent posts with the same nonce through', async () => {
    const owner = wallet(4);
    const body = await signed(owner, {
      walletAddress: owner.address,
      action: 'add',
      tokenAddress: DAI_BASE,
    });
    const results = await Promise.all([post(body), post(body), post(body)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 400, 400]);
  });

  it('refuses a nonce older than 10 minutes', async () => {
    const owner = wallet(5);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    t.clock.advance(10 * 60_000 + 1_000);
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: NONCE_ERROR, code: 'invalid_nonce' });
  });

  it('accepts a nonce just before its 10 minutes are up', async () => {
    const owner = wallet(5);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    t.clock.advance(10 * 60_000 - 1_000);
    expect((await post(body)).statusCode).toBe(201);
  });

  it('refuses a nonce issued for deactivate', async () => {
    const owner = wallet(6);
    const body = await signed(owner, { walletAddress: owner.address, action: 'deactivate' });
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'This nonce was issued for action deactivate',
      code: 'wrong_action',
    });
  });

  it('refuses a nonce issued to another account', async () => {
    const owner = wallet(7);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    const res = await post(body, apiKeyOf(tenantB));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: NONCE_ERROR, code: 'invalid_nonce' });
    // Still tenant A's to use.
    expect((await post(body, apiKeyOf(tenantA))).statusCode).toBe(201);
    expect((await getActive(owner.address, apiKeyOf(tenantB))).json()).toBeNull();
  });

  it.each([
    ['too short', { signature: '0x1234', nonce: 'abc' }, 'signature'],
    ['not hex', { signature: `0x${'zz'.repeat(65)}`, nonce: 'abc' }, 'signature'],
    ['missing', { nonce: 'abc' }, 'signature'],
    ['without a nonce', { signature: `0x${'11'.repeat(65)}` }, 'nonce'],
  ])('refuses a signature body %s as a schema error', async (_case, body, field) => {
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Validation failed');
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('ignores unknown body fields, as the reference does', async () => {
    const owner = wallet(8);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    const res = await post({ ...body, walletAddress: owner.address });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('refuses a well-formed signature that recovers to no one', async () => {
    const owner = wallet(8);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    const res = await post({ ...body, signature: `0x${'00'.repeat(65)}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Signature does not match the wallet address');
  });

  it('adding another token for the same wallet deactivates the first', async () => {
    const owner = wallet(9);
    const first = await add(owner, USDC_BASE);
    const second = await add(owner, DAI_BASE);
    expect(second.destinationId).not.toBe(first.destinationId);
    expect(second.tokenAddress).toBe(DAI_BASE);

    const active = await getActive(owner.address);
    expect(active.statusCode).toBe(200);
    expect(active.json()).toMatchObject({ destinationId: second.destinationId, active: true });
    const old = await getOne(first.destinationId);
    expect(old.statusCode).toBe(200);
    expect(old.json()).toMatchObject({ destinationId: first.destinationId, active: false });

    // Adding the first again reactivates the same record and ends the second.
    const again = await add(owner, USDC_BASE);
    expect(again.id).toBe(first.id);
    expect(again.active).toBe(true);
    expect((await getOne(second.destinationId)).json().active).toBe(false);
  });

  it('adds a Tron destination signed with the EVM key behind the Tron address', async () => {
    const owner = wallet(10);
    const tronWallet = evmToTron(owner.address);
    const body = await signed(owner, {
      walletAddress: tronWallet,
      action: 'add',
      tokenAddress: USDT_TRON,
      chainId: TRON,
    });
    const res = await post(body);
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created.destinationId).toMatch(
      new RegExp(`^${tronWallet}@eip155:728126428#[0-9A-F]{8}:${USDT_TRON}$`),
    );
    expect(created).toMatchObject({
      walletAddress: tronWallet,
      tokenAddress: USDT_TRON,
      chainId: TRON,
      network: 'tron',
      active: true,
    });
    expect(created.binaryInteropAddress).toBe(
      `0x00010000042b6653dc14${owner.address.slice(2).toLowerCase()}`,
    );
    expect((await getActive(tronWallet)).json()).toMatchObject({
      destinationId: created.destinationId,
    });
  });

  it('refuses a Tron destination signed by another key', async () => {
    const owner = wallet(11);
    const body = await signed(wallet(15), {
      walletAddress: evmToTron(owner.address),
      action: 'add',
      tokenAddress: USDT_TRON,
      chainId: TRON,
    });
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Signature does not match the wallet address');
  });
});
