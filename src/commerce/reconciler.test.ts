import { and, eq } from 'drizzle-orm';
import pino from 'pino';
import { createWalletClient, custom, type Hex, keccak256, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  authorizedPayment,
  commerceRowOf,
  local,
  OPERATOR_WALLET,
  operatorNonce,
  post,
  setupCommerceApp,
  status,
  t,
  wallet,
} from '../../test/commerce.ts';
import { type CommerceActionKind, commerceActions, commercePayments } from '../db/schema.ts';
import { createCommerceReconciler } from './reconciler.ts';

/**
 * The reconciler against a real chain and database: actions an execute operation left in
 * flight (its process stopped, or the node dropped its transaction) are ended from the chain,
 * and their amount freed, so the payment can go on.
 */

setupCommerceApp();

const GRACE_MS = 60_000;
const url = (id: string, path: string) => `/v2/commerce-payments/${id}/${path}`;

/** A reconciler as a fresh process would start it: everything it knows is in the rows. */
function reconcile(): Promise<boolean> {
  return createCommerceReconciler({
    db: t.db,
    clock: t.clock,
    logger: pino({ level: 'silent' }),
    client: (network) => (network === 'base' ? t.clients.evm('base') : null),
    graceMs: GRACE_MS,
  }).round();
}

/** An action as an execute operation leaves it when its process stops: its id. */
async function leftInFlight(
  requestId: string,
  values: {
    kind?: CommerceActionKind;
    amount: bigint;
    txHash?: Hex;
    nonce?: number;
    rawTransaction?: Hex;
  },
): Promise<string> {
  const [payment] = await t.db
    .select({ id: commercePayments.id })
    .from(commercePayments)
    .where(eq(commercePayments.requestId, requestId));
  if (!payment) throw new Error('no payment');
  const [row] = await t.db
    .insert(commerceActions)
    .values({
      commercePaymentId: payment.id,
      kind: values.kind ?? 'capture',
      amount: values.amount,
      status: values.txHash ? 'sent' : 'pending',
      txHash: values.txHash ?? null,
      nonce: values.nonce ?? null,
      rawTransaction: values.rawTransaction ?? null,
      createdAt: t.clock.now(),
    })
    .returning({ id: commerceActions.id });
  if (!row) throw new Error('no action');
  return row.id;
}

async function actionOf(id: string) {
  const [row] = await t.db.select().from(commerceActions).where(eq(commerceActions.id, id));
  return row;
}

const capturable = async (requestId: string) =>
  (await status(requestId)).json().capturableAmount as string;

const operatorClient = () =>
  createWalletClient({
    account: wallet(OPERATOR_WALLET),
    chain: local.chain.chain,
    transport: custom(local.chain.provider, { retryCount: 0 }),
  });

/** The operator's wallet signs `data` to `to` (gas given, so a revert is mined), unsent. */
async function operatorSigns(to: Hex, data: Hex) {
  const client = operatorClient();
  const request = await client.prepareTransactionRequest({ to, data, gas: 300_000n });
  const serialized = await client.signTransaction(request);
  return { serialized, hash: keccak256(serialized), nonce: request.nonce };
}

/** The operator's wallet sends `data` to `to` (gas given, so a revert is mined): its hash. */
async function operatorSends(to: Hex, data: Hex): Promise<Hex> {
  const { serialized, hash } = await operatorSigns(to, data);
  // Hardhat answers a reverted transaction with an error; it is mined all the same.
  await operatorClient()
    .sendRawTransaction({ serializedTransaction: serialized })
    .catch(() => undefined);
  return hash;
}

describe('the commerce reconciler', () => {
  it('frees a capture whose transaction was dropped, once its nonce is taken and the grace passed', async () => {
    const requestId = await authorizedPayment();
    const taken = (await operatorNonce()) - 1;
    const dropped = await leftInFlight(requestId, {
      amount: 50_000_000n,
      txHash: keccak256(toHex('never reached the node')),
      nonce: taken,
    });
    // Its nonce not yet passed: it could still be mined; it stays whatever the time.
    const waiting = await leftInFlight(requestId, {
      amount: 0n,
      kind: 'void',
      txHash: keccak256(toHex('not mined yet')),
      nonce: taken + 1,
    });
    expect(await capturable(requestId)).toBe('0');
    const blocked = await post(url(requestId, 'capture'), { captureAmount: '50' });
    expect(blocked.statusCode, blocked.body).toBe(409);

    await reconcile();
    expect(await actionOf(dropped)).toMatchObject({ status: 'sent', endedAt: null });
    t.clock.advance(GRACE_MS);
    await reconcile();
    expect(await actionOf(dropped)).toMatchObject({
      status: 'failed',
      failureReason: expect.stringContaining(`nonce ${taken} was taken by another transaction`),
    });
    expect(await actionOf(waiting)).toMatchObject({ status: 'sent' });
    expect(await capturable(requestId)).toBe('50');
  });

  it('confirms a sent transaction mined with success, and fails and frees a reverted one', async () => {
    const requestId = await authorizedPayment();
    const call = await post(url(requestId, 'capture/calldata'), { captureAmount: '20' });
    expect(call.statusCode, call.body).toBe(200);
    const captured = await operatorSends(call.json().to, call.json().calldata);
    const confirmed = await leftInFlight(requestId, { amount: 20_000_000n, txHash: captured });
    const garbage = await operatorSends(call.json().to, '0xdeadbeef');
    const reverted = await leftInFlight(requestId, { amount: 30_000_000n, txHash: garbage });
    expect(await capturable(requestId)).toBe('0');

    // No grace for a mined transaction: its receipt decides at once.
    await reconcile();
    expect(await actionOf(confirmed)).toMatchObject({ status: 'confirmed', txHash: captured });
    expect(await actionOf(reverted)).toMatchObject({
      status: 'failed',
      failureReason: `transaction ${garbage} reverted`,
    });
    const after = (await status(requestId)).json();
    expect(after).toMatchObject({ capturedAmount: '20', capturableAmount: '30' });
  });

  it('broadcasts again a sent capture its node never got, which then confirms, once', async () => {
    const requestId = await authorizedPayment();
    const call = await post(url(requestId, 'capture/calldata'), { captureAmount: '50' });
    expect(call.statusCode, call.body).toBe(200);
    // Marked sent, then the process stopped before its broadcast.
    const signed = await operatorSigns(call.json().to, call.json().calldata);
    const lost = await leftInFlight(requestId, {
      amount: 50_000_000n,
      txHash: signed.hash,
      nonce: signed.nonce,
      rawTransaction: signed.serialized,
    });
    expect(await capturable(requestId)).toBe('0');

    // Young, it may still be its request's own broadcast: left alone.
    await reconcile();
    expect(await operatorNonce()).toBe(signed.nonce);
    t.clock.advance(GRACE_MS);
    await reconcile();
    await reconcile();
    expect(await actionOf(lost)).toMatchObject({ status: 'confirmed', txHash: signed.hash });
    expect(await operatorNonce()).toBe(signed.nonce + 1);
    expect(await status(requestId).then((res) => res.json())).toMatchObject({
      capturedAmount: '50',
      capturableAmount: '0',
    });
  });

  it('fails an action never broadcast once the grace passed, and not before', async () => {
    const requestId = await authorizedPayment();
    const unsent = await leftInFlight(requestId, { amount: 50_000_000n });
    t.clock.advance(GRACE_MS - 1);
    await reconcile();
    expect(await actionOf(unsent)).toMatchObject({ status: 'pending' });
    expect(await capturable(requestId)).toBe('0');
    t.clock.advance(1);
    await reconcile();
    expect(await actionOf(unsent)).toMatchObject({
      status: 'failed',
      failureReason: 'never sent: the server stopped before broadcasting it',
    });
    const nonce = await operatorNonce();
    const capture = await post(url(requestId, 'capture'), { captureAmount: '50' });
    expect(capture.statusCode, capture.body).toBe(200);
    expect(await operatorNonce()).toBe(nonce + 1);
  });

  it('fails a confirmed capture a reorganisation took back before detection saw it, after the grace', async () => {
    const requestId = await authorizedPayment();
    const beforeCapture = await local.chain.snapshot();
    const capture = await post(url(requestId, 'capture'), { captureAmount: '30' });
    expect(capture.statusCode, capture.body).toBe(200);
    const { id: paymentId } = await commerceRowOf(requestId);
    const [action] = await t.db
      .select()
      .from(commerceActions)
      .where(
        and(eq(commerceActions.commercePaymentId, paymentId), eq(commerceActions.kind, 'capture')),
      );
    if (!action) throw new Error('no capture action');
    // Still on the chain: a confirmed action stays confirmed while detection catches up.
    t.clock.advance(GRACE_MS - 1);
    await reconcile();
    expect(await actionOf(action.id)).toMatchObject({ status: 'confirmed' });
    expect(await capturable(requestId)).toBe('20');

    // Gone from the chain, within the grace (a node behind its peers may not know it yet).
    await local.chain.revert(beforeCapture);
    await reconcile();
    expect(await actionOf(action.id)).toMatchObject({ status: 'confirmed' });
    t.clock.advance(1);
    await reconcile();
    expect(await actionOf(action.id)).toMatchObject({
      status: 'failed',
      failureReason: `taken back by a reorganisation: transaction ${action.txHash} is no longer on the chain`,
    });
    // The authorization, still confirmed on the chain, counts; what the capture took is back.
    expect(await capturable(requestId)).toBe('50');
    const again = await post(url(requestId, 'capture'), { captureAmount: '50' });
    expect(again.statusCode, again.body).toBe(200);
  });
});
