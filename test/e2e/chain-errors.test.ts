import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { REFUSING_URL } from '../process.ts';

/** A network without RPC, or with one that does not answer: a clear 503, never a 500. */

const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const PAYER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

async function linkOnBase(t: TestApp, tenant: Tenant): Promise<string> {
  const target = resolveTarget(t.chains, {
    walletAddress: PAYEE,
    chainId: 8453,
    tokenAddress: USDC_BASE,
  });
  const destination = await activateDestination(t.db, t.clock, tenant.accountId, target);
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { requests: [{ destinationId: destination.destinationId, amount: '1' }] },
  });
  return res.json().token;
}

describe('chain errors', () => {
  let unconfigured: TestApp;
  let down: TestApp;
  beforeAll(async () => {
    unconfigured = await createTestApp();
    // Nothing listens on this loopback port: every RPC call fails to connect.
    down = await createTestApp({ env: { RPC_URL_BASE: REFUSING_URL } });
  });
  afterAll(async () => {
    await unconfigured.close();
    await down.close();
  });

  it('answers 503 when the network has no RPC, but still builds calldata without a wallet', async () => {
    const tenant = await createTenant(unconfigured.db);
    const token = await linkOnBase(unconfigured, tenant);
    const withWallet = await unconfigured.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}/pay?wallet=${PAYER}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(withWallet.statusCode).toBe(503);
    expect(withWallet.json()).toEqual({
      statusCode: 503,
      message: 'Network base is not available on this server: no RPC is configured for it',
      error: 'Service Unavailable',
      code: 'chain_unavailable',
    });
    const withoutWallet = await unconfigured.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}/pay`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(withoutWallet.statusCode).toBe(200);
    expect(withoutWallet.json().transactions).toHaveLength(2);
  });

  it('answers 503 with Retry-After when the RPC does not answer, and logs no stack to the caller', async () => {
    const tenant = await createTenant(down.db);
    const token = await linkOnBase(down, tenant);
    const res = await down.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}/pay?wallet=${PAYER}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(res.statusCode).toBe(503);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.json()).toEqual({
      statusCode: 503,
      message: 'Network base did not answer; try again shortly',
      error: 'Service Unavailable',
      code: 'chain_rpc_failed',
    });
  });
});
