import { and, eq } from 'drizzle-orm';
import { custom, type EIP1193Parameters, getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizedPayment,
  commerceDeps,
  local,
  OPERATOR_WALLET,
  post,
  setupCommerceApp,
  t,
  tenantA,
  wallet,
} from '../../test/commerce.ts';
import { openTestDatabase } from '../../test/database.ts';
import { createChainClients } from '../chains/clients.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { openPostgres } from '../db/postgres.ts';
import { commerceActions, commercePayments } from '../db/schema.ts';
import { erc20Abi } from '../payments/abis.ts';
import { capturePlan, refundPlan } from './actions.ts';
import { executeAction } from './execute.ts';
import { createSendQueue } from './send-queue.ts';

/**
 * The operator's send queue: a refund's approval of the wrapper holds it only to sign and
 * broadcast, not while its receipt is awaited; and on Postgres two processes sharing one
 * operator key take turns (an advisory lock per key), so they never sign the same nonce.
 */

setupCommerceApp();

describe('a refund’s approval', () => {
  it('leaves the queue to other sends while its receipt is awaited', async () => {
    // Receipts are held while the gate is shut: a receipt the node is slow to give.
    let shut = false;
    const held: (() => void)[] = [];
    const transport = custom(
      {
        async request(args: EIP1193Parameters) {
          if (args.method === 'eth_getTransactionReceipt' && shut) {
            await new Promise<void>((resolve) => held.push(resolve));
          }
          return local.chain.provider.request(args);
        },
      },
      { retryCount: 0 },
    );
    const clients = createChainClients({
      config: t.config,
      chains: t.chains,
      transports: { base: transport },
    });
    // The server's own operator, not a shared key (the sandbox's development operator's case):
    // it approves the wrapper before a refund.
    const deps = commerceDeps({ clients });
    const scope = { accountId: tenantA.accountId, clientIdId: null };
    const refunded = await authorizedPayment();
    const capture = await post(`/v2/commerce-payments/${refunded}/capture`, {
      captureAmount: '50',
    });
    expect(capture.statusCode, capture.body).toBe(200);
    const other = await authorizedPayment();

    shut = true;
    const refunding = executeAction(
      deps,
      scope,
      refunded,
      refundPlan(t.chains, { refundAmount: '10' }, undefined),
    );
    const wrapper = getAddress(t.chains.contracts('base').commerceEscrowWrapper ?? '');
    const usdc = getAddress(local.chain.addresses.usdc);
    // The approval is mined (the local chain mines at once); its receipt is held.
    await expect
      .poll(
        () =>
          local.chain.client.readContract({
            address: usdc,
            abi: erc20Abi,
            functionName: 'allowance',
            args: [wallet(OPERATOR_WALLET).address, wrapper],
          }),
        { timeout: 10_000 },
      )
      .toBe(10_000_000n);
    const capturing = executeAction(
      deps,
      scope,
      other,
      capturePlan(t.chains, { captureAmount: '50' }, undefined),
    );
    // The capture is signed and sent while the approval's receipt is still awaited.
    const [payment] = await t.db
      .select({ id: commercePayments.id })
      .from(commercePayments)
      .where(eq(commercePayments.requestId, other));
    await expect
      .poll(
        async () => {
          const [action] = await t.db
            .select({ status: commerceActions.status })
            .from(commerceActions)
            .where(
              and(
                eq(commerceActions.commercePaymentId, payment?.id ?? ''),
                eq(commerceActions.kind, 'capture'),
              ),
            );
          return action?.status;
        },
        { timeout: 5_000 },
      )
      .toBe('sent');

    shut = false;
    for (const release of held.splice(0)) release();
    expect((await capturing).amount).toBe(50_000_000n);
    expect((await refunding).amount).toBe(10_000_000n);
  });
});

describe.runIf(process.env.DATABASE_URL)('two processes sharing an operator key', () => {
  let first: DatabaseHandle;
  let second: DatabaseHandle;
  beforeAll(async () => {
    first = await openTestDatabase();
    if (first.engine.kind !== 'postgres') throw new Error('needs Postgres');
    second = openPostgres(
      (first.engine.pool.options as { connectionString: string }).connectionString,
      2,
    );
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('send one at a time per key, and at once for other keys', async () => {
    const [a, b] = [createSendQueue(first), createSendQueue(second)];
    const log: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = a.run('base:0xop', async () => {
      log.push('a starts');
      await gate;
      log.push('a ends');
    });
    await expect.poll(() => log).toEqual(['a starts']);
    const waiting = b.run('base:0xop', async () => {
      log.push('b starts');
    });
    await b.run('base:0xother', async () => {
      log.push('other key');
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(log).toEqual(['a starts', 'other key']);
    release();
    await Promise.all([slow, waiting]);
    expect(log).toEqual(['a starts', 'other key', 'a ends', 'b starts']);
  });
});
