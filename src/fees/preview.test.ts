import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { feeConfigs, securePayments } from '../db/schema.ts';
import { linkClientId } from '../orchestrators/links.ts';
import { createOrchestrator } from '../orchestrators/orchestrators.ts';

/** `POST /v2/secure-payments/fees/preview`: the plan a payment of these inputs would capture. */

const URL = '/v2/secure-payments/fees/preview';
const ORCHESTRATOR_WALLET = '0x2546BcD3c84621e976D8185a91A922aE77ECEc30';
const PROTOCOL_WALLET = '0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199';

let t: TestApp;
let tenant: Tenant;
let key: string;

beforeAll(async () => {
  t = await createTestApp({
    env: { PROTOCOL_FEE_BPS: '10', PROTOCOL_FEE_EVM_RECIPIENT: PROTOCOL_WALLET },
  });
  tenant = await createTenant(t.db);
  const platform = await createOrchestrator(t.db, 'Platform');
  key = platform.orchestratorKey;
  await linkClientId(t.db, platform.orchestratorId, tenant.backendClientId);
  for (const config of [
    { feeBearer: 'payer', bps: 50, usdCap: '0.40' },
    { feeBearer: 'recipient', bps: 100 },
  ]) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/orchestrators/fee-configs',
      headers: { 'x-orchestrator-key': key },
      payload: { flow: 'incoming', evmRecipientAddress: ORCHESTRATOR_WALLET, ...config },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
});
afterAll(() => t.close());

const preview = (headers: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'POST', url: URL, headers, payload });
const pair = () => ({ 'x-orchestrator-key': key, 'x-client-id': tenant.backendClientId });

async function rows() {
  const [configs] = await t.db.select({ n: count() }).from(feeConfigs);
  const [links] = await t.db.select({ n: count() }).from(securePayments);
  return [configs?.n, links?.n];
}

describe('fee preview', () => {
  it('applies the orchestrator’s configs with paired auth, and writes nothing', async () => {
    const before = await rows();
    const res = await preview(pair(), { amount: '100', currency: 'USDC', flow: 'get_paid' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      version: 1,
      flow: 'get_paid',
      defaultFeeBearer: 'payee',
      grossAmountUsd: '100',
      netRecipientAmountUsd: '98.9',
      payerTotalAmountUsd: '100.4',
      totalFeesUsd: '1.5',
      payeeBorneFeesUsd: '1.1',
      payerBorneFeesUsd: '0.4',
    });
    expect(
      res
        .json()
        .fees.map((fee: { type: string; calculatedAmountUsd: string }) => [
          fee.type,
          fee.calculatedAmountUsd,
        ]),
    ).toEqual([
      ['orchestrator_fee', '0.4'],
      ['orchestrator_fee', '1'],
      ['protocol_fee', '0.1'],
    ]);
    expect(await rows()).toEqual(before);
  });

  it('gives only the protocol fee without paired auth', async () => {
    const res = await preview(
      { 'x-api-key': tenant.apiKey },
      { amount: '100', currency: 'USDC-base', flow: 'pay', defaultFeeBearer: 'payee' },
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      flow: 'pay',
      defaultFeeBearer: 'payee',
      netRecipientAmountUsd: '99.9',
      payerTotalAmountUsd: '100',
      fees: [
        {
          type: 'protocol_fee',
          feeBearerSource: 'payment_default_override',
          destinationRef: { evmAddress: PROTOCOL_WALLET },
        },
      ],
    });
  });

  it('applies outgoing configs only to pay (none here) and 18-decimal stablecoins 1:1', async () => {
    const res = await preview(pair(), { amount: '2.5', currency: 'DAI-mainnet', flow: 'pay' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      defaultFeeBearer: 'payer',
      grossAmountUsd: '2.5',
      payerTotalAmountUsd: '2.5025',
      fees: [{ type: 'protocol_fee', feeBearerSource: 'flow_default' }],
    });
  });

  it('refuses a currency that is not a USD stablecoin, and a bad amount', async () => {
    for (const currency of ['EURC-base', 'ETH-base', 'USD', 'NOPE']) {
      const res = await preview(pair(), { amount: '1', currency, flow: 'get_paid' });
      expect(res.statusCode, currency).toBe(400);
      expect(res.json().code).toBe('unsupported_fee_currency');
    }
    const bad = await preview(pair(), { amount: '-1', currency: 'USDC', flow: 'get_paid' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toMatchObject([{ field: 'amount' }]);
  });
});
