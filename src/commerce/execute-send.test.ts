import { eq } from 'drizzle-orm';
import pino from 'pino';
import {
  createWalletClient,
  custom,
  encodeErrorResult,
  type Hex,
  RpcRequestError,
  TimeoutError,
} from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import {
  authorizedPayment,
  BUYER_WALLET,
  commerceDeps,
  createdPayment,
  local,
  OPERATOR_WALLET,
  operatorNonce,
  post,
  sendBuyerCalls,
  setupCommerceApp,
  status,
  t,
  tenantA,
  wallet,
} from '../../test/commerce.ts';
import { commerceActions } from '../db/schema.ts';
import { commerceErrorsAbi } from '../payments/commerce/errors.ts';
import { capturePlan } from './actions.ts';
import { executeAction } from './execute.ts';
import { createCommerceReconciler } from './reconciler.ts';
import { contractRefusal } from './reverts.ts';
import { createSendQueue } from './send-queue.ts';

/**
 * What an execute operation answers when its send goes wrong, on a real chain and database,
 * faults injected in the app's RPC alone: a broadcast the node may have taken (it timed out)
 * is in flight, its amount kept until the reconciler ends it; one the node refused frees it;
 * a capture the escrow refuses at its gas estimate for an expiry the server's cached chain time
 * had not reached answers the same 409 as if it had, with nothing sent.
 */

/** What the app's `eth_sendRawTransaction` does instead of the chain's, while set. */
let broadcastFault: ((raw: unknown) => Promise<unknown>) | null = null;
/** The app's reads of a transaction time out while set (its RPC went down after the broadcast). */
let readsDown = false;
const READS = new Set(['eth_getTransactionReceipt', 'eth_getTransactionByHash']);

setupCommerceApp({
  provider: (chain) => ({
    async request(args) {
      const fault = broadcastFault;
      if (args.method === 'eth_sendRawTransaction' && fault) {
        return fault(Array.isArray(args.params) ? args.params[0] : undefined);
      }
      if (readsDown && READS.has(args.method)) throw rpcTimeout();
      return chain.provider.request(args);
    },
  }),
});

afterEach(() => {
  broadcastFault = null;
  readsDown = false;
});

const url = (id: string, path: string) => `/v2/commerce-payments/${id}/${path}`;
const rpcTimeout = () =>
  new TimeoutError({ body: { method: 'eth_sendRawTransaction' }, url: 'rpc' });
const forward = (raw: unknown) =>
  local.chain.provider.request({ method: 'eth_sendRawTransaction', params: [raw] });

async function actionsOf(txHash: string) {
  return t.db.select().from(commerceActions).where(eq(commerceActions.txHash, txHash));
}

function reconcile(): Promise<boolean> {
  return createCommerceReconciler({
    db: t.db,
    clock: t.clock,
    logger: pino({ level: 'silent' }),
    client: () => t.clients.evm('base'),
    graceMs: 60_000,
  }).round();
}

describe('an execute operation whose send goes wrong', () => {
  it('answers a broadcast that timed out after the node took it in flight, keeps its amount, and the reconciler confirms it', async () => {
    const requestId = await authorizedPayment();
    broadcastFault = async (raw) => {
      await forward(raw);
      readsDown = true;
      throw rpcTimeout();
    };
    const res = await post(url(requestId, 'capture'), { captureAmount: '20' });
    broadcastFault = null;
    readsDown = false;
    expect(res.statusCode, res.body).toBe(200);
    const hash: Hex = res.json().transactionHash;
    expect(res.json()).toMatchObject({ status: 'CAPTURING', captureAmount: '20' });
    expect(await actionsOf(hash)).toMatchObject([{ status: 'sent', endedAt: null }]);
    // Mined all the same: freeing its 20 would let a merchant's retry capture twice.
    expect((await local.chain.client.getTransactionReceipt({ hash })).status).toBe('success');
    expect((await status(requestId)).json()).toMatchObject({ capturableAmount: '30' });
    const nonce = await operatorNonce();
    const again = await post(url(requestId, 'capture'), { captureAmount: '50' });
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json().code).toBe('commerce_capture_exceeds_capturable');
    expect(await operatorNonce()).toBe(nonce);

    await reconcile();
    expect(await actionsOf(hash)).toMatchObject([{ status: 'confirmed' }]);
    expect((await status(requestId)).json()).toMatchObject({
      capturedAmount: '20',
      capturableAmount: '30',
    });
  });

  it('takes a nonce too low for the transaction itself, mined by an earlier attempt, as sent', async () => {
    const requestId = await authorizedPayment();
    // The first attempt reached the node and was mined; the answer to the second is the node's.
    broadcastFault = async (raw) => {
      await forward(raw);
      return forward(raw);
    };
    const res = await post(url(requestId, 'capture'), { captureAmount: '20' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).not.toBe('CAPTURING');
    expect(await actionsOf(res.json().transactionHash)).toMatchObject([{ status: 'confirmed' }]);
    expect((await status(requestId)).json()).toMatchObject({ capturedAmount: '20' });
  });

  it('frees the amount of a broadcast the node refused for good, and captures it after', async () => {
    const requestId = await authorizedPayment();
    const operator = createWalletClient({
      account: wallet(OPERATOR_WALLET),
      chain: local.chain.chain,
      transport: custom(local.chain.provider, { retryCount: 0 }),
    });
    // Another sender of the operator's key takes the nonce first: the node refuses the capture.
    broadcastFault = async (raw) => {
      await operator.sendTransaction({ to: operator.account.address, value: 0n });
      return forward(raw);
    };
    const res = await post(url(requestId, 'capture'), { captureAmount: '20' });
    broadcastFault = null;
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json().code).toBe('commerce_transaction_failed');
    expect(res.json().message).toMatch(
      /^The capture transaction failed; its amount is free again: .*nonce too low/i,
    );
    expect((await status(requestId)).json()).toMatchObject({ capturableAmount: '50' });
    const capture = await post(url(requestId, 'capture'), { captureAmount: '50' });
    expect(capture.statusCode, capture.body).toBe(200);
    expect((await status(requestId)).json()).toMatchObject({ capturedAmount: '50' });
  });

  it('keeps in flight a broadcast answered by an error that refuses nothing (a 5xx), which the reconciler sends again', async () => {
    const requestId = await authorizedPayment();
    broadcastFault = async () => {
      readsDown = true;
      throw new RpcRequestError({
        body: { method: 'eth_sendRawTransaction' },
        error: { code: -32603, message: 'upstream unavailable' },
        url: 'rpc',
      });
    };
    const nonce = await operatorNonce();
    const res = await post(url(requestId, 'capture'), { captureAmount: '50' });
    broadcastFault = null;
    readsDown = false;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'CAPTURING' });
    const hash: Hex = res.json().transactionHash;
    expect(await actionsOf(hash)).toMatchObject([{ status: 'sent' }]);
    // It never reached the node: the reconciler broadcasts the kept bytes, and it lands once.
    expect(await operatorNonce()).toBe(nonce);
    t.clock.advance(60_000);
    await reconcile();
    await reconcile();
    expect(await operatorNonce()).toBe(nonce + 1);
    expect(await actionsOf(hash)).toMatchObject([{ status: 'confirmed' }]);
    expect((await status(requestId)).json()).toMatchObject({ capturedAmount: '50' });
  });

  it('keeps a broadcast sent when what follows it in the send queue fails, and answers it', async () => {
    const requestId = await authorizedPayment();
    // Fault injection: the queue's transaction (the advisory lock's) fails to commit after its
    // task broadcast the capture.
    const queue = createSendQueue(t.database);
    const deps = commerceDeps({
      sends: {
        run: async (key, task) => {
          await queue.run(key, task);
          throw new Error('Connection terminated unexpectedly');
        },
      },
    });
    const scope = { accountId: tenantA.accountId, clientIdId: null };
    const nonce = await operatorNonce();
    const done = await executeAction(
      deps,
      scope,
      requestId,
      capturePlan(t.chains, { captureAmount: '20' }, undefined),
    );
    expect(await operatorNonce()).toBe(nonce + 1);
    // Mined, and counted: marked failed, its 20 would be free to capture a second time.
    expect(await actionsOf(done.transactionHash)).toMatchObject([{ status: 'confirmed' }]);
    expect((await status(requestId)).json()).toMatchObject({
      capturedAmount: '20',
      capturableAmount: '30',
    });
  });

  it('decodes a commerce contract error, naming it', () => {
    const data = encodeErrorResult({
      abi: commerceErrorsAbi,
      errorName: 'InsufficientAuthorization',
      args: [`0x${'ab'.repeat(32)}`, 0n, 20_000_000n],
    });
    const error = new RpcRequestError({
      body: {},
      error: { code: 3, message: 'execution reverted', data },
      url: 'rpc',
    });
    expect(contractRefusal(error)).toEqual({
      text: `InsufficientAuthorization(0x${'ab'.repeat(32)}, 0, 20000000)`,
      chainTime: null,
    });
    expect(contractRefusal(new Error('socket hang up'))).toBeNull();
  });

  // Last: the chain's clock moves years ahead, past the test clock.
  it('refuses a capture the escrow refuses past its expiry, before the cached chain time knew, with nothing sent', async () => {
    const { requestId, transactions } = await createdPayment({ authorizationExpiry: 600 });
    await sendBuyerCalls(BUYER_WALLET, transactions);
    expect((await post(url(requestId, 'authorize'), {})).statusCode).toBe(200);
    // Read now; the test clock stands still, so the server reads the chain's time no more.
    const before = (await status(requestId)).json();
    expect(before.canCapture).toBe(true);
    const expiry = Date.parse(before.authorizationExpiry) / 1000;
    await local.chain.provider.request({ method: 'evm_setNextBlockTimestamp', params: [expiry] });
    await local.chain.provider.request({ method: 'evm_mine', params: [] });
    const nonce = await operatorNonce();
    const res = await post(url(requestId, 'capture'), { captureAmount: '1' });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'commerce_authorization_expired',
      message: `The authorization expired at ${before.authorizationExpiry} (authorizationExpiry): nothing can be captured`,
    });
    expect(await operatorNonce()).toBe(nonce);
    const [action] = await t.db
      .select()
      .from(commerceActions)
      .where(eq(commerceActions.amount, 1_000_000n));
    expect(action).toMatchObject({
      status: 'failed',
      txHash: null,
      failureReason: expect.stringMatching(
        /^the contract refused it: AfterAuthorizationExpiry\(\d+, \d+\)$/,
      ),
    });
  });
});
