import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { LocalAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmToTron } from '../../src/chains/tron-address.ts';
import { createTronGridClient, TronGridError } from '../../src/chains/tron-grid.ts';
import { securePayments } from '../../src/db/schema.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { TronTransaction } from '../../src/payments/transactions.ts';
import { encodeTronRaw } from '../../src/payments/tron-protobuf.ts';
import { tronRawFromJson } from '../../src/payments/tron-raw-json.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf } from '../chain.ts';
import type { FakeTronNode } from '../fake-tron-node.ts';
import { createTenant, SHOP_ORIGIN, type Tenant } from '../fixtures.ts';
import { REFUSING_URL } from '../process.ts';
import {
  placeTronBatch,
  type SignedTron,
  signTron,
  signTronCall,
  startTronWorld,
  TRON_BATCH,
  TRON_CHAIN_ID,
  TRON_PROXY,
  TRON_USDT,
  tronBalance,
} from '../tron-world.ts';

/**
 * `POST /v2/secure-payments/{token}/tron/broadcast` against a Tron full node over real HTTP
 * (test/fake-tron-node.ts: it checks each transaction's id and signature and runs it on the
 * real token and fee-proxy bytecode): a transaction the link expects is relayed and executed;
 * anything else is refused before the node hears of it.
 */

const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const PAYEE = 1;
const PAYER = 2;
const OTHER = 3;
const APPROVE = 'approve(address,uint256)';
const PAY = 'transferFromWithReferenceAndFee(address,address,uint256,bytes,uint256,address)';

let evm: LocalChain;
let node: FakeTronNode;
let t: TestApp;
let tenant: Tenant;
let destinationId: string;
let payer: LocalAccount;
let payerTron: string;

beforeAll(async () => {
  evm = await startLocalChain({ chainId: 31337, walletCount: 4 });
  node = await startTronWorld(evm, [PAYER, OTHER]);
  t = await createTestApp({ env: { RPC_URL_TRON: node.url } });
  tenant = await createTenant(t.db);
  const target = resolveTarget(t.chains, {
    walletAddress: evmToTron(accountOf(evm, PAYEE).address),
    chainId: TRON_CHAIN_ID,
    tokenAddress: TRON_USDT,
  });
  destinationId = (await activateDestination(t.db, t.clock, tenant.accountId, target))
    .destinationId;
  payer = accountOf(evm, PAYER) as LocalAccount;
  payerTron = evmToTron(payer.address);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await node?.close();
  await evm?.close();
});

/** A Tron link for `amount` USDT, and the calls /pay gives the payer: approve, then pay. */
async function tronLink(amount: string) {
  const created = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { requests: [{ destinationId, amount }] },
  });
  expect(created.statusCode, created.body).toBe(201);
  const token = created.json().token as string;
  const pay = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?wallet=${payerTron}`,
    headers: { 'x-api-key': tenant.apiKey },
  });
  expect(pay.statusCode, pay.body).toBe(200);
  const [approve, payment] = pay.json().transactions as [TronTransaction, TronTransaction];
  return { token, approve, payment };
}

/** As a browser page of the shop would call it: its client ID, from its origin. */
function broadcast(app: TestApp, token: string, signedTransaction: unknown) {
  return app.app.inject({
    method: 'POST',
    url: `/v2/secure-payments/${token}/tron/broadcast`,
    headers: { 'x-client-id': tenant.browserClientId, origin: SHOP_ORIGIN },
    payload: { signedTransaction },
  });
}

/** Request API 0.31.0's body: the signed transaction at the top level, no wrapper. */
function broadcastFlat(app: TestApp, token: string, body: unknown) {
  return app.app.inject({
    method: 'POST',
    url: `/v2/secure-payments/${token}/tron/broadcast`,
    headers: { 'x-client-id': tenant.browserClientId, origin: SHOP_ORIGIN },
    payload: body as Record<string, unknown>,
  });
}

const broadcastsSeen = () =>
  node.grid.requests.filter((r) => r.path === '/wallet/broadcasttransaction').length;

/** Raw data changed after signing, with the hex and id made consistent again (not the signature). */
function rewrite(signed: SignedTron, change: (raw: SignedTron['raw_data']) => void): SignedTron {
  const raw = structuredClone(signed.raw_data);
  change(raw);
  const rawHex = Buffer.from(encodeTronRaw(tronRawFromJson(raw).raw)).toString('hex');
  const txID = createHash('sha256').update(Buffer.from(rawHex, 'hex')).digest('hex');
  return { ...signed, raw_data: raw, raw_data_hex: rawHex, txID };
}

describe('relaying a signed Tron transaction', () => {
  it('relays the approve, then the payment; the node runs both and the payee holds the amount', async () => {
    const { token, approve, payment } = await tronLink('12.5');
    const before = await tronBalance(evm, evmToTron(accountOf(evm, PAYEE).address));

    const signedApprove = await signTronCall(node.url, approve, payer);
    const first = await broadcast(t, token, signedApprove);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ result: true, txid: signedApprove.txID });

    const signedPayment = await signTronCall(node.url, payment, payer);
    const second = await broadcast(t, token, signedPayment);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toEqual({ result: true, txid: signedPayment.txID });

    expect(node.executed.slice(-2)).toEqual([signedApprove.txID, signedPayment.txID]);
    expect(await tronBalance(evm, evmToTron(accountOf(evm, PAYEE).address))).toBe(
      before + 12_500_000n,
    );
  });

  it('takes the body flat as 0.31.0 sends it, and wrapped as 0.13.0 does, in one payment', async () => {
    const { token, approve, payment } = await tronLink('2.5');
    const before = await tronBalance(evm, evmToTron(accountOf(evm, PAYEE).address));
    // The approval flat (0.31.0), the payment wrapped (0.13.0): both relayed, both run.
    const signedApprove = await signTronCall(node.url, approve, payer);
    const first = await broadcastFlat(t, token, signedApprove);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ result: true, txid: signedApprove.txID });
    const signedPayment = await signTronCall(node.url, payment, payer);
    const second = await broadcast(t, token, signedPayment);
    expect(second.statusCode, second.body).toBe(200);
    expect(node.executed.slice(-2)).toEqual([signedApprove.txID, signedPayment.txID]);
    expect(await tronBalance(evm, evmToTron(accountOf(evm, PAYEE).address))).toBe(
      before + 2_500_000n,
    );
  });

  it('refuses a body with both shapes at once, or flat without a part, relaying nothing', async () => {
    const { token, approve } = await tronLink('1');
    const signed = await signTronCall(node.url, approve, payer);
    const seen = broadcastsSeen();
    const both = await broadcastFlat(t, token, { signedTransaction: signed, txID: signed.txID });
    expect(both.statusCode, both.body).toBe(400);
    expect(both.json()).toMatchObject({
      code: 'validation_failed',
      errors: [
        { field: 'txID', message: 'send the transaction flat or in signedTransaction, not both' },
      ],
    });
    const { signature: _left, ...unsigned } = signed;
    const partial = await broadcastFlat(t, token, unsigned);
    expect(partial.statusCode, partial.body).toBe(400);
    expect(partial.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'signature', message: 'is required (or send signedTransaction)' }],
    });
    expect(broadcastsSeen()).toBe(seen);
  });

  it('refuses altered transactions with 400 naming what differs, and relays none of them', async () => {
    const { token, approve, payment } = await tronLink('3');
    const other = evmToTron(accountOf(evm, OTHER).address);
    const payee = evmToTron(accountOf(evm, PAYEE).address);
    const seen = broadcastsSeen();
    const refusals: [string, SignedTron, string][] = [
      [
        'another recipient',
        await signTronCall(
          node.url,
          {
            ...payment,
            parameters: payment.parameters.map((p, i) => (i === 1 ? { ...p, value: other } : p)),
          },
          payer,
        ),
        `transferFromWithReferenceAndFee's _to is ${other}, the link expects ${payee}`,
      ],
      [
        'another amount',
        await signTronCall(
          node.url,
          {
            ...payment,
            parameters: payment.parameters.map((p, i) =>
              i === 2 ? { ...p, value: '1000000' } : p,
            ),
          },
          payer,
        ),
        "transferFromWithReferenceAndFee's _amount is 1000000, the link expects 3000000",
      ],
      [
        'a larger approval',
        await signTronCall(
          node.url,
          {
            ...approve,
            parameters: approve.parameters.map((p, i) =>
              i === 1 ? { ...p, value: '99000000' } : p,
            ),
          },
          payer,
        ),
        "approve's amount is 99000000, the link expects 3000000",
      ],
      [
        'a raised fee_limit',
        await signTronCall(node.url, { ...payment, feeLimit: 300_000_001 }, payer),
        `fee_limit is 300000001 sun, above the 300000000 the link allows for ${PAY}`,
      ],
      [
        'a call value',
        await signTronCall(node.url, { ...approve, callValue: 5 }, payer),
        `call_value is 5 sun; the link expects 0 for ${APPROVE}`,
      ],
      [
        'another contract',
        await signTronCall(
          node.url,
          { ...approve, contractAddress: TRON_PROXY, functionSelector: APPROVE },
          payer,
        ),
        `The transaction calls selector 0x095ea7b3 on ${TRON_PROXY}; the link expects ${PAY}`,
      ],
      [
        'a contract the link never calls',
        await signTronCall(node.url, { ...approve, contractAddress: other }, payer),
        `The transaction calls ${other}; the link expects ${APPROVE} on ${TRON_USDT} or ${PAY} on ${TRON_PROXY}`,
      ],
      [
        'a txID that is not the hash of raw_data_hex',
        { ...(await signTronCall(node.url, approve, payer)), txID: 'ab'.repeat(32) },
        'txID is not the SHA-256 of raw_data_hex',
      ],
      [
        'raw data changed under its hex',
        await (async () => {
          const signed = await signTronCall(node.url, approve, payer);
          return { ...signed, raw_data: { ...signed.raw_data, fee_limit: 1 } };
        })(),
        'raw_data_hex does not encode raw_data: fee_limit is 1; raw_data_hex holds 100000000',
      ],
      [
        'a call value in the signed bytes that raw_data leaves out',
        await (async () => {
          const signed = await signTronCall(node.url, { ...approve, callValue: 5 }, payer);
          const raw = structuredClone(signed.raw_data);
          const value = (raw.contract[0] as { parameter: { value: Record<string, unknown> } })
            .parameter.value;
          delete value.call_value;
          return { ...signed, raw_data: raw };
        })(),
        'raw_data_hex does not encode raw_data: contract[0].parameter.value.call_value is absent; raw_data_hex holds 5',
      ],
      [
        'raw data in the JSON form our fake node once used',
        await (async () => {
          const signed = await signTronCall(node.url, approve, payer);
          const rawHex = Buffer.from(JSON.stringify(signed.raw_data)).toString('hex');
          const txID = createHash('sha256').update(Buffer.from(rawHex, 'hex')).digest('hex');
          return signTron({ ...signed, raw_data_hex: rawHex, txID }, payer);
        })(),
        'raw_data_hex is not a protobuf Transaction.raw: Transaction.raw field 15 has wire type 3',
      ],
      [
        'signed bytes with a field given twice',
        await (async () => {
          const signed = await signTronCall(node.url, approve, payer);
          // fee_limit (field 18) again, at 1 sun: a reader keeping the last would see 1.
          const rawHex = `${signed.raw_data_hex}900101`;
          const txID = createHash('sha256').update(Buffer.from(rawHex, 'hex')).digest('hex');
          return signTron({ ...signed, raw_data_hex: rawHex, txID }, payer);
        })(),
        'raw_data_hex is not a protobuf Transaction.raw: Transaction.raw.fee_limit is given more than once',
      ],
      [
        'another owner than the signer',
        rewrite(await signTronCall(node.url, approve, payer), (raw) => {
          const value = (raw.contract[0] as { parameter: { value: Record<string, unknown> } })
            .parameter.value;
          value.owner_address = `41${accountOf(evm, OTHER).address.slice(2).toLowerCase()}`;
        }),
        `The transaction is not signed by its owner ${other}`,
      ],
      [
        'two contracts',
        await (async () => {
          const signed = await signTronCall(node.url, approve, payer);
          const doubled = rewrite(signed, (raw) => {
            raw.contract = [raw.contract[0], raw.contract[0]];
          });
          return signTron(doubled, payer);
        })(),
        'The transaction must hold exactly one contract; it holds 2',
      ],
    ];
    for (const [what, signed, message] of refusals) {
      const res = await broadcast(t, token, signed);
      expect(res.statusCode, `${what}: ${res.body}`).toBe(400);
      expect(res.json(), what).toMatchObject({
        statusCode: 400,
        error: 'Bad Request',
        code: 'tron_transaction_mismatch',
        message,
      });
    }
    expect(broadcastsSeen()).toBe(seen);
  });

  it('answers 502 with the node’s code and its decoded message when the node refuses', async () => {
    const { token, approve } = await tronLink('1');
    node.refuseNext('CONTRACT_VALIDATE_ERROR', 'Validate TriggerSmartContract error, no energy');
    const res = await broadcast(t, token, await signTronCall(node.url, approve, payer));
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json()).toEqual({
      statusCode: 502,
      error: 'Bad Gateway',
      code: 'tron_broadcast_refused',
      message:
        'The Tron node refused the transaction: CONTRACT_VALIDATE_ERROR (Validate TriggerSmartContract error, no energy)',
      nodeCode: 'CONTRACT_VALIDATE_ERROR',
      nodeMessage: 'Validate TriggerSmartContract error, no energy',
    });
  });

  it('answers 502 when the node answers with an HTTP error', async () => {
    const { token, approve } = await tronLink('1');
    const signed = await signTronCall(node.url, approve, payer);
    node.grid.failNext(1, 503);
    const res = await broadcast(t, token, signed);
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json()).toMatchObject({
      code: 'tron_node_unreachable',
      message: 'The Tron node did not answer; try again shortly',
    });
  });

  it('answers 502 when the node cannot be reached, and logs why without the API key', async () => {
    const down = await createTestApp({
      env: { RPC_URL_TRON: REFUSING_URL, TRON_API_KEY: 'tron-down-key' },
    });
    try {
      const shop = await createTenant(down.db);
      const target = resolveTarget(down.chains, {
        walletAddress: evmToTron(accountOf(evm, PAYEE).address),
        chainId: TRON_CHAIN_ID,
        tokenAddress: TRON_USDT,
      });
      const destination = await activateDestination(down.db, down.clock, shop.accountId, target);
      const created = await down.app.inject({
        method: 'POST',
        url: '/v2/secure-payments',
        headers: { 'x-api-key': shop.apiKey },
        payload: { requests: [{ destinationId: destination.destinationId, amount: '1' }] },
      });
      const token = created.json().token as string;
      const pay = await down.app.inject({
        method: 'GET',
        url: `/v2/secure-payments/${token}/pay?wallet=${payerTron}`,
        headers: { 'x-api-key': shop.apiKey },
      });
      const [approve] = pay.json().transactions as TronTransaction[];
      const res = await down.app.inject({
        method: 'POST',
        url: `/v2/secure-payments/${token}/tron/broadcast`,
        headers: { 'x-api-key': shop.apiKey },
        payload: {
          signedTransaction: await signTronCall(node.url, approve as TronTransaction, payer),
        },
      });
      expect(res.statusCode, res.body).toBe(502);
      expect(res.json()).toEqual({
        statusCode: 502,
        error: 'Bad Gateway',
        code: 'tron_node_unreachable',
        message: 'The Tron node did not answer; try again shortly',
      });
      expect(down.logs.entries()).toContainEqual(
        expect.objectContaining({ msg: 'tron broadcast failed', reason: 'network', status: null }),
      );
      expect(down.logs.text()).not.toContain('tron-down-key');
    } finally {
      await down.close();
    }
  });

  it('answers 400 for a link on an EVM network, before looking at the transaction', async () => {
    const evmDestination = await activateDestination(
      t.db,
      t.clock,
      tenant.accountId,
      resolveTarget(t.chains, {
        walletAddress: accountOf(evm, PAYEE).address,
        chainId: 8453,
        tokenAddress: USDC_BASE,
      }),
    );
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { requests: [{ destinationId: evmDestination.destinationId, amount: '1' }] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { approve } = await tronLink('1');
    const seen = broadcastsSeen();
    const res = await broadcast(
      t,
      created.json().token,
      await signTronCall(node.url, approve, payer),
    );
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'tron_link_required',
      message: 'This link is paid on base, not Tron: send its transactions from the wallet',
    });
    expect(broadcastsSeen()).toBe(seen);
  });

  it('answers as /pay does for unknown (404), completed (409) and expired (403) links', async () => {
    const { token, approve } = await tronLink('1');
    const signed = await signTronCall(node.url, approve, payer);
    const seen = broadcastsSeen();

    const unknown = await broadcast(t, '01HZZZZZZZZZZZZZZZZZZZZZZZ', signed);
    expect(unknown.statusCode, unknown.body).toBe(404);
    expect(unknown.json()).toMatchObject({
      code: 'secure_payment_not_found',
      message: 'Secure payment not found',
    });

    await t.db
      .update(securePayments)
      .set({ status: 'completed' })
      .where(eq(securePayments.token, token));
    const completed = await broadcast(t, token, signed);
    expect(completed.statusCode, completed.body).toBe(409);
    expect(completed.json()).toMatchObject({
      code: 'secure_payment_completed',
      message: 'Secure payment has already been completed',
      status: 'completed',
    });

    const later = await tronLink('1');
    t.clock.advance(8 * 24 * 3600 * 1000);
    const expired = await broadcast(
      t,
      later.token,
      await signTronCall(node.url, later.approve, payer),
    );
    expect(expired.statusCode, expired.body).toBe(403);
    expect(expired.json()).toMatchObject({
      code: 'secure_payment_expired',
      message: 'Secure payment has expired',
    });
    expect(broadcastsSeen()).toBe(seen);
  });

  it('refuses a body that is not the reference’s signed transaction', async () => {
    const { token } = await tronLink('1');
    const res = await broadcast(t, token, { raw_data_hex: 'zz', signature: [], raw_data: {} });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed', message: 'Validation failed' });
  });

  it('sends the API key as TRON-PRO-API-KEY and never puts it in an error', async () => {
    const { approve } = await tronLink('1');
    const signed = await signTronCall(node.url, approve, payer);
    const client = createTronGridClient({ baseUrl: node.url, apiKey: 'tron-secret-key' });
    const answer = await client.broadcastTransaction(signed);
    expect(answer).toEqual({ accepted: true, txid: signed.txID });
    const sent = node.grid.requests.at(-1);
    expect(sent?.path).toBe('/wallet/broadcasttransaction');
    expect(sent?.headers['tron-pro-api-key']).toBe('tron-secret-key');

    node.grid.failNext(1, 500);
    const failure = await client.broadcastTransaction(signed).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TronGridError);
    expect((failure as TronGridError).message).toBe(
      'TronGrid POST /wallet/broadcasttransaction answered 500',
    );
    // The node refuses the same transaction twice, and says why in hex; the client decodes it.
    expect(await client.broadcastTransaction(signed)).toEqual({
      accepted: false,
      code: 'DUP_TRANSACTION_ERROR',
      message: 'dup transaction',
    });
  });

  it('relays a multicall payout’s approval and batch call; each recipient gets exactly its amount', async () => {
    await placeTronBatch(evm);
    const children: string[] = [];
    for (const [recipient, amount] of [
      [PAYEE, '1.25'],
      [OTHER, '2.5'],
    ] as const) {
      const made = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments/payouts',
        headers: { 'x-api-key': tenant.apiKey },
        payload: {
          recipient: evmToTron(accountOf(evm, recipient).address),
          creatorWalletAddress: payerTron,
          network: 'tron',
          currency: 'USDT-tron',
          amount,
        },
      });
      expect(made.statusCode, made.body).toBe(201);
      children.push(made.json().token);
    }
    const parent = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/multicall-payouts',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { childTokens: children },
    });
    expect(parent.statusCode, parent.body).toBe(201);
    const token = parent.json().token as string;
    const pay = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}/pay?wallet=${payerTron}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(pay.statusCode, pay.body).toBe(200);
    expect(pay.json()).toMatchObject({ paymentType: 'multicall', executionKind: 'tron_batch' });
    const [approve, batch] = pay.json().transactions as [TronTransaction, TronTransaction];
    expect([approve.functionSelector, batch.contractAddress]).toEqual([APPROVE, TRON_BATCH]);

    // The batch with one amount raised: named, and never relayed.
    const amounts = batch.parameters[2]?.value as string[];
    const raised = {
      ...batch,
      parameters: batch.parameters.map((p, i) =>
        i === 2 ? { ...p, value: [amounts[0] ?? '', '2500001'] } : p,
      ),
    };
    const seen = broadcastsSeen();
    const altered = await broadcast(t, token, await signTronCall(node.url, raised, payer));
    expect(altered.statusCode, altered.body).toBe(400);
    expect(altered.json()).toMatchObject({
      code: 'tron_transaction_mismatch',
      message: expect.stringContaining(
        "batchERC20PaymentsWithReference's _amounts is [1250000, 2500001], the link expects [1250000, 2500000]",
      ),
    });
    expect(broadcastsSeen()).toBe(seen);

    // The same calls signed by a wallet other than creatorWalletAddress: refused as /pay
    // refuses that wallet, and never relayed.
    const stranger = accountOf(evm, OTHER) as LocalAccount;
    for (const call of [approve, batch]) {
      const refused = await broadcast(t, token, await signTronCall(node.url, call, stranger));
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json().code).toBe('payout_wallet_mismatch');
    }
    expect(broadcastsSeen()).toBe(seen);

    const payee = evmToTron(accountOf(evm, PAYEE).address);
    const other = evmToTron(accountOf(evm, OTHER).address);
    const before = [await tronBalance(evm, payee), await tronBalance(evm, other)];
    for (const call of [approve, batch]) {
      const relayed = await broadcast(t, token, await signTronCall(node.url, call, payer));
      expect(relayed.statusCode, relayed.body).toBe(200);
      expect(relayed.json().result).toBe(true);
    }
    expect((await tronBalance(evm, payee)) - (before[0] ?? 0n)).toBe(1_250_000n);
    expect((await tronBalance(evm, other)) - (before[1] ?? 0n)).toBe(2_500_000n);
  });
});
