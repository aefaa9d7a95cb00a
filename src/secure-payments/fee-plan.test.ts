import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { createClientId } from '../auth/client-ids.ts';
import { activateDestination } from '../destinations/destinations.ts';
import { resolveTarget } from '../destinations/target.ts';
import { linkClientId } from '../orchestrators/links.ts';
import { createOrchestrator } from '../orchestrators/orchestrators.ts';

/**
 * A link captures its fee plan when it is made, by the preview's resolver: shown on creation
 * and by token, unchanged by later fee-config edits.
 */

const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const MERCHANT_WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const FEE_WALLET = '0x2546BcD3c84621e976D8185a91A922aE77ECEc30';
const PROTOCOL_WALLET = '0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199';

let t: TestApp;
let merchant: Tenant;
let key: string;
let clientId: string;
let recipientConfigId: string;
let destinationId: string;

beforeAll(async () => {
  t = await createTestApp({
    env: { PROTOCOL_FEE_BPS: '10', PROTOCOL_FEE_EVM_RECIPIENT: PROTOCOL_WALLET },
  });
  merchant = await createTenant(t.db, 'Merchant');
  const target = resolveTarget(t.chains, {
    walletAddress: MERCHANT_WALLET,
    chainId: 8453,
    tokenAddress: USDC_BASE,
  });
  const destination = await activateDestination(t.db, t.clock, merchant.accountId, target);
  destinationId = destination.destinationId;
  const platform = await createOrchestrator(t.db, 'Platform');
  key = platform.orchestratorKey;
  clientId = (
    await createClientId(t.db, {
      accountId: merchant.accountId,
      label: 'Bound',
      allowedDomains: [],
      payeeDestinationId: destination.destinationId,
    })
  ).clientId;
  await linkClientId(t.db, platform.orchestratorId, clientId);
  for (const config of [
    { feeBearer: 'payer', bps: 50, usdCap: '0.40' },
    { feeBearer: 'recipient', bps: 100, clientId },
  ]) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/orchestrators/fee-configs',
      headers: { 'x-orchestrator-key': key },
      payload: { flow: 'incoming', evmRecipientAddress: FEE_WALLET, ...config },
    });
    expect(res.statusCode, res.body).toBe(201);
    if (config.feeBearer === 'recipient') recipientConfigId = res.json().id;
  }
});
afterAll(() => t.close());

const pair = () => ({ 'x-orchestrator-key': key, 'x-client-id': clientId });

/** With paired auth the bound destination is the link's; an API key names it. */
async function createLink(headers: Record<string, string>, amount: string) {
  const named = 'x-api-key' in headers ? { destinationId } : {};
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers,
    payload: { requests: [{ amount, ...named }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { token: string; feePlan: unknown };
}

async function shown(token: string): Promise<unknown> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}`,
    headers: { 'x-api-key': merchant.apiKey },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().feePlan;
}

async function preview(headers: Record<string, string>, amount: string): Promise<unknown> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments/fees/preview',
    headers,
    payload: { amount, currency: 'USDC-base', flow: 'get_paid' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('fee plans captured at link creation', () => {
  it('answers the worked example on creation and by token', async () => {
    const link = await createLink(pair(), '100');
    expect(link.feePlan).toMatchObject({
      netRecipientAmountUsd: '98.9',
      payerTotalAmountUsd: '100.4',
      fees: [
        { type: 'orchestrator_fee', feeBearer: 'payer', configSource: 'orchestrator_default' },
        { type: 'orchestrator_fee', feeBearer: 'payee', configSource: 'client_id_config' },
        { type: 'protocol_fee', feeBearer: 'payee' },
      ],
    });
    expect(await shown(link.token)).toEqual(link.feePlan);
  });

  it('equals the preview of the same inputs (seeded amounts)', async () => {
    let seed = 33;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 8; i += 1) {
      const amount = `${random() % 100_000}.${String(random() % 1_000_000).padStart(6, '0')}`;
      if (Number(amount) === 0) continue;
      const link = await createLink(pair(), amount);
      expect(link.feePlan, amount).toEqual(await preview(pair(), amount));
      const apiKey = { 'x-api-key': merchant.apiKey };
      const alone = await createLink(apiKey, amount);
      expect(alone.feePlan, amount).toEqual(await preview(apiKey, amount));
    }
  });

  it('applies the orchestrator’s configs only with paired auth', async () => {
    const link = await createLink({ 'x-api-key': merchant.apiKey }, '100');
    expect(link.feePlan).toMatchObject({
      totalFeesUsd: '0.1',
      fees: [{ type: 'protocol_fee', configSource: 'protocol' }],
    });
  });

  it('keeps a link’s plan when its config changes later; new links take the change', async () => {
    const before = await createLink(pair(), '100');
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v2/orchestrators/fee-configs/${recipientConfigId}`,
      headers: { 'x-orchestrator-key': key },
      payload: { bps: 200 },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(await shown(before.token)).toEqual(before.feePlan);
    expect(before.feePlan).toMatchObject({ netRecipientAmountUsd: '98.9' });
    const after = await createLink(pair(), '100');
    expect(after.feePlan).toMatchObject({ netRecipientAmountUsd: '97.9' });
    expect(await shown(after.token)).toEqual(after.feePlan);
  });

  it('captures a payout link’s plan: flow pay, the outgoing configs, payer-borne by default', async () => {
    const config = await t.app.inject({
      method: 'POST',
      url: '/v2/orchestrators/fee-configs',
      headers: { 'x-orchestrator-key': key },
      payload: {
        flow: 'outgoing',
        feeBearer: 'recipient',
        bps: 30,
        evmRecipientAddress: FEE_WALLET,
      },
    });
    expect(config.statusCode, config.body).toBe(201);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/payouts',
      headers: pair(),
      payload: {
        recipient: FEE_WALLET,
        creatorWalletAddress: MERCHANT_WALLET,
        network: 'base',
        currency: 'USDC-base',
        amount: '50',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const plan = res.json().feePlan;
    expect(plan).toMatchObject({
      flow: 'pay',
      defaultFeeBearer: 'payer',
      netRecipientAmountUsd: '49.85',
      payerTotalAmountUsd: '50.05',
      fees: [
        { type: 'orchestrator_fee', feeBearer: 'payee', percentageBps: 30 },
        { type: 'protocol_fee', feeBearer: 'payer', feeBearerSource: 'flow_default' },
      ],
    });
    const previewed = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/fees/preview',
      headers: pair(),
      payload: { amount: '50', currency: 'USDC-base', flow: 'pay' },
    });
    expect(previewed.json()).toEqual(plan);
    expect(await shown(res.json().token)).toEqual(plan);
  });
});
