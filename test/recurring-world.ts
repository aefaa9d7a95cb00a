import { inArray } from 'drizzle-orm';
import { type Account, type Address, encodeFunctionData, type Hex } from 'viem';
import { expect } from 'vitest';
import { recurringPayouts } from '../src/db/schema.ts';
import type { Indexer } from '../src/detection/indexer.ts';
import type { RecurringExecutor } from '../src/payouts/recurring/executor.ts';
import { SCHEDULE_PERMIT_TYPES } from '../src/payouts/recurring/permit.ts';
import { sandboxRelayer } from '../src/sandbox/addresses.ts';
import type { Dispatcher } from '../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from './app.ts';
import { type StandIn, sendAll, standIn } from './chain.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { messageOf } from './recurring-http.ts';
import { mineAt, TOKEN_ABI } from './recurring-proxy.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';
import { testDispatcher, testIndexer, testRecurringExecutor } from './workers.ts';

type ExecutorOptions = NonNullable<Parameters<typeof testRecurringExecutor>[1]>;

/**
 * Recurring payouts end to end: the real app on a local chain standing in for base (the real
 * Request contracts and our ERC20RecurringPaymentProxy, whose relayer role the sandbox relayer
 * holds, and whose key is the app's RECURRING_RELAYER_KEY), the executor, the indexer and the
 * dispatcher driven by hand, and a real webhook receiver. Time moves on the test clock and the
 * chain together, so the contract's due check agrees with the executor's.
 */

export interface World {
  readonly local: StandIn;
  readonly t: TestApp;
  readonly tenant: Tenant;
  readonly receiver: Receiver;
  readonly dispatcher: Dispatcher;
  readonly indexer: Indexer;
  readonly executor: RecurringExecutor;
  /** Another executor (another process), stopped with the world. */
  spawn(options?: ExecutorOptions): RecurringExecutor;
  readonly executors: RecurringExecutor[];
}

export async function startWorld(): Promise<World> {
  const local = await standIn('base');
  let executor: RecurringExecutor | undefined;
  const t = await createTestApp({
    env: {
      ...local.env,
      CONFIRMATIONS_BASE: '1',
      RECURRING_RELAYER_KEY: sandboxRelayer().privateKey,
    },
    transports: local.transports,
    relayerHealth: () => {
      const health = executor?.health();
      return health ? [health] : [];
    },
  });
  const executors: RecurringExecutor[] = [];
  const spawn = (options: ExecutorOptions = {}) => {
    const spawned = testRecurringExecutor(t, options);
    executors.push(spawned);
    return spawned;
  };
  executor = spawn();
  const tenant = await createTenant(t.db);
  const receiver = await startReceiver();
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-client-id': tenant.backendClientId },
    payload: { url: receiver.url },
  });
  expect(registered.statusCode, registered.body).toBe(201);
  receiver.verifyWith(registered.json().secret);
  return {
    local,
    t,
    tenant,
    receiver,
    dispatcher: testDispatcher(t),
    indexer: testIndexer(t, { confirmations: 1 }),
    executor,
    spawn,
    executors,
  };
}

export async function closeWorld(world: World | undefined): Promise<void> {
  await Promise.all(world?.executors.map((e) => e.stop()) ?? []);
  await world?.receiver.close();
  await world?.t.close();
  await world?.local.chain.close();
}

/** Cancels every schedule earlier tests left running, so their dates do not compete. */
export async function retireSchedules(world: World): Promise<void> {
  await world.t.db
    .update(recurringPayouts)
    .set({ status: 'cancelled', nextPaymentAt: null })
    .where(inArray(recurringPayouts.status, ['pending', 'active', 'paused']));
}

/** Moves the test clock to `date` and mines a block at it: both clocks read the same time. */
export async function at(world: World, date: Date | string): Promise<void> {
  const when = new Date(date);
  world.t.clock.set(when);
  await mineAt(world.local.chain, Math.floor(when.getTime() / 1000));
}

/** Mines a block over the executor's transactions and lets the indexer record them. */
export async function detect(world: World): Promise<number> {
  await world.local.chain.provider.request({ method: 'evm_mine' });
  return (await world.indexer.tick()).recorded;
}

export const headers = (world: World) => ({ 'x-client-id': world.tenant.backendClientId });

export interface Created {
  readonly id: string;
  readonly requestId: string;
  readonly paymentReference: string;
  readonly transactions: { to: Hex; data: Hex; value: { hex: Hex } }[];
}

/**
 * `payer` creates a monthly schedule of `totalPayments` over HTTP, sends the approval it is
 * answered (unless `approve` is false), signs the permit with viem's `signTypedData` and
 * activates it.
 */
export async function createSchedule(
  world: World,
  options: {
    payer: Account;
    payee: Address;
    start: Date;
    amount?: string;
    fee?: { percentage: string; address: Address };
    totalPayments?: number;
    approve?: boolean;
  },
): Promise<Created> {
  const res = await world.t.app.inject({
    method: 'POST',
    url: '/v2/payouts',
    headers: headers(world),
    payload: {
      payee: options.payee,
      amount: options.amount ?? '10',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      ...(options.fee && {
        feePercentage: options.fee.percentage,
        feeAddress: options.fee.address,
      }),
      recurrence: {
        startDate: options.start.toISOString(),
        frequency: 'MONTHLY',
        totalPayments: options.totalPayments ?? 3,
        payer: options.payer.address,
      },
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const created = res.json();
  if (options.approve !== false) await approve(world, options.payer, created.transactions);
  const permit = created.recurringPaymentPermit;
  if (!options.payer.signTypedData) throw new Error('the payer cannot sign');
  const signature = await options.payer.signTypedData({
    domain: permit.domain,
    types: SCHEDULE_PERMIT_TYPES,
    primaryType: 'SchedulePermit',
    message: messageOf(permit.values),
  });
  const activated = await world.t.app.inject({
    method: 'POST',
    url: `/v2/payouts/recurring/${created.id}`,
    headers: headers(world),
    payload: { permitSignature: signature },
  });
  expect(activated.statusCode, activated.body).toBe(201);
  return created;
}

/** Sends the approvals a create or cancel answered, as the payer's wallet would. */
async function approve(
  world: World,
  payer: Account,
  transactions: readonly { to: Hex; data: Hex; value: { hex: Hex } }[],
): Promise<void> {
  await sendAll(
    world.local.chain,
    payer,
    transactions.map((tx) => ({ to: tx.to, data: tx.data, value: tx.value.hex, chainId: 8453 })),
  );
}

/** Sets the payer's allowance of the recurring proxy directly (its wallet's own choice). */
export async function setAllowance(world: World, payer: Account, value: bigint): Promise<void> {
  const proxy = world.local.chain.addresses.recurringPaymentProxy;
  const data = encodeFunctionData({
    abi: TOKEN_ABI,
    functionName: 'approve',
    args: [proxy, value],
  });
  await sendAll(world.local.chain, payer, [
    { to: world.local.chain.addresses.usdc, data, value: '0x0', chainId: 8453 },
  ]);
}

export function usdcBalance(world: World, owner: Address): Promise<bigint> {
  return world.local.chain.client.readContract({
    address: world.local.chain.addresses.usdc,
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });
}

/** `GET /v2/payouts/recurring/{id}`. */
export async function readSchedule(world: World, id: string) {
  const res = await world.t.app.inject({
    method: 'GET',
    url: `/v2/payouts/recurring/${id}`,
    headers: headers(world),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function patchSchedule(world: World, id: string, action: 'cancel' | 'unpause') {
  const res = await world.t.app.inject({
    method: 'PATCH',
    url: `/v2/payouts/recurring/${id}`,
    headers: headers(world),
    payload: { action },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** `(scheduleId, index, kind)` of a run's outcomes, for exact comparisons. */
export const kinds = (result: Awaited<ReturnType<RecurringExecutor['runOnce']>>) =>
  result.outcomes.map((o) => [o.scheduleId, o.index, o.kind]);
