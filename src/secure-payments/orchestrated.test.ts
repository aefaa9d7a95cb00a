import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { createClientId } from '../auth/client-ids.ts';
import { requests, securePayments } from '../db/schema.ts';
import { activateDestination, type DestinationRow } from '../destinations/destinations.ts';
import { resolveTarget } from '../destinations/target.ts';
import { linkClientId } from '../orchestrators/links.ts';
import { createOrchestrator } from '../orchestrators/orchestrators.ts';
import { UNBOUND_ORCHESTRATED_MESSAGE } from './create.ts';

/**
 * An orchestrator acting for a linked client ID (`x-orchestrator-key` + `x-client-id`) is a
 * party other than the account: it may create links that pay where the account bound the
 * client ID, and nothing else of the account's.
 */

const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const MERCHANT_WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const OTHER_WALLET = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

let t: TestApp;
let merchant: Tenant;
let orchestratorKey: string;
let otherOrchestratorKey: string;
let bound: { clientId: string; destination: DestinationRow };
let unbound: string;
let otherDestination: DestinationRow;

async function destination(wallet: string): Promise<DestinationRow> {
  const target = resolveTarget(t.chains, {
    walletAddress: wallet,
    chainId: 8453,
    tokenAddress: USDC_BASE,
  });
  return activateDestination(t.db, t.clock, merchant.accountId, target);
}

beforeAll(async () => {
  t = await createTestApp();
  merchant = await createTenant(t.db, 'Merchant');
  const main = await destination(MERCHANT_WALLET);
  otherDestination = await destination(OTHER_WALLET);
  const platform = await createOrchestrator(t.db, 'Platform');
  orchestratorKey = platform.orchestratorKey;
  otherOrchestratorKey = (await createOrchestrator(t.db, 'Rival')).orchestratorKey;
  const boundClient = await createClientId(t.db, {
    accountId: merchant.accountId,
    label: 'Bound',
    allowedDomains: [],
    payeeDestinationId: main.destinationId,
  });
  bound = { clientId: boundClient.clientId, destination: main };
  unbound = (
    await createClientId(t.db, { accountId: merchant.accountId, label: 'Free', allowedDomains: [] })
  ).clientId;
  await linkClientId(t.db, platform.orchestratorId, bound.clientId);
  await linkClientId(t.db, platform.orchestratorId, unbound);
});
afterAll(() => t.close());

const pair = (clientId: string, key = orchestratorKey) => ({
  'x-orchestrator-key': key,
  'x-client-id': clientId,
});

function createLink(headers: Record<string, string>, item: object = { amount: '10' }) {
  return t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers,
    payload: { requests: [item] },
  });
}

async function linkCount(): Promise<number> {
  return (
    await t.db.select().from(securePayments).where(eq(securePayments.accountId, merchant.accountId))
  ).length;
}

describe('an orchestrator with a linked client ID', () => {
  it('creates links that pay the client ID’s bound destination', async () => {
    const res = await createLink(pair(bound.clientId));
    expect(res.statusCode, res.body).toBe(201);
    const [request] = await t.db
      .select()
      .from(requests)
      .where(eq(requests.requestId, res.json().requestIds[0]));
    expect(request).toMatchObject({
      accountId: merchant.accountId,
      payee: MERCHANT_WALLET,
      destinationId: bound.destination.id,
    });
    // The merchant sees it as one of its own.
    const own = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${res.json().token}`,
      headers: { 'x-api-key': merchant.apiKey },
    });
    expect(own.statusCode).toBe(200);
  });

  it('may not send the money elsewhere: another of the account’s destinations is refused', async () => {
    const before = await linkCount();
    const res = await createLink(pair(bound.clientId), {
      amount: '10',
      destinationId: otherDestination.destinationId,
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('destination_mismatch');
    expect(await linkCount()).toBe(before);
  });

  it('is refused for a client ID without a bound destination, even naming one of the account’s', async () => {
    const before = await linkCount();
    const res = await createLink(pair(unbound), {
      amount: '10',
      destinationId: otherDestination.destinationId,
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      code: 'client_id_not_bound',
      message: UNBOUND_ORCHESTRATED_MESSAGE,
    });
    expect(await linkCount()).toBe(before);
    // The account itself, with its own client ID, still may.
    const itself = await createLink(
      { 'x-client-id': unbound },
      {
        amount: '10',
        destinationId: otherDestination.destinationId,
      },
    );
    expect(itself.statusCode, itself.body).toBe(201);
  });

  it('is refused with another orchestrator’s key', async () => {
    const res = await createLink(pair(bound.clientId, otherOrchestratorKey));
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('client_id_not_linked');
  });

  it('cannot list the account’s links', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/secure-payments',
      headers: pair(bound.clientId),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('credential_not_accepted');
  });
});
