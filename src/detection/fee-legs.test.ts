import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import type { Currency } from '../chains/currencies.ts';
import { type FeeLegState, feeLegsOf, insertFeeLegs } from '../fees/legs.ts';
import { insertRequests, type RequestRow } from '../requests/requests.ts';
import { createSettlement } from '../workers/settlement.ts';
import { matchFeeLegs } from './fee-legs.ts';
import { matchRequests, recordPayments } from './record.ts';
import { rollBack } from './rollback.ts';
import type { DetectedPayment } from './types.ts';

/**
 * A fee leg's payment is recorded with the payee's, in the same transaction, and a
 * reorganisation drops it with its block: the leg is outstanding again until the new chain
 * pays it.
 */

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const PLATFORM = '0x2546BcD3c84621e976D8185a91A922aE77ECEc30';
const PROTOCOL = '0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199';

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db);
});
afterAll(() => t?.close());

function usdc(): Currency {
  const found = t.chains.currency('USDC-base');
  if (!found) throw new Error('USDC-base');
  return found;
}

/** A request of 1,000 base units whose plan has a platform fee (40) and a protocol fee (10). */
async function requestWithLegs(): Promise<{ request: RequestRow; legs: FeeLegState[] }> {
  const network = t.chains.network('base');
  if (!network) throw new Error('base');
  const [request] = await insertRequests(t.db, [
    {
      accountId: tenant.accountId,
      clientIdId: null,
      network,
      invoiceCurrency: usdc(),
      paymentCurrency: usdc(),
      expectedAmount: 1_000n,
      payee: PAYEE,
    },
  ]);
  if (!request) throw new Error('no request');
  await insertFeeLegs(
    t.db,
    { requestId: request.requestId, network: 'base', currency: 'USDC-base' },
    [
      {
        position: 0,
        type: 'orchestrator_fee',
        label: 'Platform fee',
        feeBearer: 'payer',
        recipient: PLATFORM,
        amount: 40n,
      },
      {
        position: 1,
        type: 'protocol_fee',
        label: 'Protocol fee',
        feeBearer: 'payer',
        recipient: PROTOCOL,
        amount: 10n,
      },
    ],
  );
  return { request, legs: (await feeLegsOf(t.db, [request.id])).get(request.id) ?? [] };
}

/** A USDC payment of `amount` to `recipient` under a reference, at a block and log index. */
function event(
  to: {
    readonly referenceTopic: string | null;
    readonly recipient: string;
    readonly amount: bigint;
  },
  block: bigint,
  logIndex: number,
): DetectedPayment {
  return {
    network: 'base',
    txHash: `0x${block.toString(16).padStart(64, '0')}`,
    logIndex,
    blockNumber: block,
    blockHash: `0x${'cd'.repeat(32)}`,
    timestamp: new Date(0),
    referenceTopic: to.referenceTopic ?? '',
    tokenAddress: usdc().address,
    payee: to.recipient,
    amount: to.amount,
    feeAmount: 0n,
    feeAddress: null,
    payerAddress: null,
    payerEoaAddress: null,
  };
}

async function paid(request: RequestRow): Promise<bigint[]> {
  const legs = (await feeLegsOf(t.db, [request.id])).get(request.id) ?? [];
  return legs.map((leg) => leg.paidAmount);
}

describe('fee-leg payments on a reorganisation', () => {
  it('drops the fee-leg payments above the fork and keeps those at or below it', async () => {
    const { request, legs } = await requestWithLegs();
    const [platform, protocol] = legs;
    if (!platform || !protocol) throw new Error('no legs');
    // The protocol fee was paid early (block 3); the payee and the platform fee later (block 6).
    const events = [
      event(protocol, 3n, 0),
      event({ referenceTopic: request.referenceTopic, recipient: PAYEE, amount: 1_000n }, 6n, 0),
      event(platform, 6n, 1),
    ];
    const sink = createSettlement({ chains: t.chains });
    const feeLegs = await matchFeeLegs(t.db, t.chains, 'base', events);
    expect(feeLegs.map((m) => m.leg.position)).toEqual([1, 0]);
    const recorded = await recordPayments(
      t.db,
      { sink, now: t.clock.now() },
      await matchRequests(t.db, t.chains, 'base', events),
      { network: 'base', lastBlock: 10n, blocks: [] },
      feeLegs,
    );
    expect(recorded).toBe(3);
    expect(await paid(request)).toEqual([40n, 10n]);

    expect(await rollBack(t.db, { sink }, 'base', 4n)).toBe(1);
    expect(await paid(request)).toEqual([0n, 10n]);
    const [dropped] = (await feeLegsOf(t.db, [request.id])).get(request.id) ?? [];
    expect(dropped).toMatchObject({ paidAmount: 0n, txHash: null, paidAt: null });

    // The next scan records what the new chain holds: the leg is paid again.
    const again = [event(platform, 7n, 0)];
    await recordPayments(
      t.db,
      { sink, now: t.clock.now() },
      [],
      { network: 'base', lastBlock: 10n, blocks: [] },
      await matchFeeLegs(t.db, t.chains, 'base', again),
    );
    expect(await paid(request)).toEqual([40n, 10n]);
  });
});
