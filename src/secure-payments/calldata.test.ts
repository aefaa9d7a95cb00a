import { eq } from 'drizzle-orm';
import { decodeFunctionData, type Hex, zeroAddress } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BASE_CHAIN_ID,
  BASE_USDC,
  browser,
  calldata,
  createLink,
  destination,
  type Headers,
  pay,
  requestRows,
  rpcCalls,
  setupSecurePaymentsApp,
  shop,
  TRON_USDT,
  TRON_WALLET,
  t,
  validationFailed,
  wallet,
} from '../../test/secure-payments.ts';
import { TRON_CHAIN_ID } from '../chains/networks.ts';
import { requests } from '../db/schema.ts';
import { erc20Abi, erc20FeeProxyAbi } from '../payments/abis.ts';
import { referenceBytes } from '../payments/references.ts';

/**
 * `GET /v2/secure-payments/{token}/pay` and `POST /v2/secure-payments/{token}/calldata` over
 * HTTP on the real app: the payer inputs they check, the calldata they return (the same from
 * both) and what is still due on a partly paid link.
 */

const BASE_ERC20_FEE_PROXY = '0x1892196E80C4c17ea5100Da765Ab48c1fE2Fb814';
const BASE_BATCH_PAYMENTS = '0x1aF3f22685AcdDc788B3730ed415912d8f654420';
const TRON_ERC20_FEE_PROXY = 'TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd';

setupSecurePaymentsApp();

/** GET /pay with the inputs as a query and POST /calldata with them as a body, side by side. */
async function bothCalldata(token: string, inputs: Record<string, string>, headers?: Headers) {
  return [await pay(token, inputs, headers), await calldata(token, inputs, headers)];
}

describe('GET /{token}/pay and POST /{token}/calldata: inputs', () => {
  let token: string;
  let tronToken: string;
  beforeAll(async () => {
    const dest = await destination(shop);
    token = (await createLink(shop, [{ destinationId: dest.destinationId, amount: '3' }])).token;
    const tron = await destination(shop, {
      walletAddress: TRON_WALLET,
      chainId: TRON_CHAIN_ID,
      tokenAddress: TRON_USDT,
    });
    tronToken = (await createLink(shop, [{ destinationId: tron.destinationId, amount: '4' }]))
      .token;
  });

  it.each([
    ['chain without token', { chain: 'BASE' }, 'token'],
    ['token without chain', { token: 'USDC' }, 'chain'],
  ])('answers 400 for %s', async (_case, inputs, field) => {
    for (const res of await bothCalldata(token, inputs)) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject(
        validationFailed([{ field, message: 'chain and token must be sent together' }]),
      );
    }
  });

  it('answers 400 for chain and token without the wallet that pays from there', async () => {
    for (const res of await bothCalldata(token, { chain: 'ARBITRUM', token: 'USDC' })) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject(
        validationFailed([
          {
            field: 'wallet',
            message: 'is required with chain and token (the wallet that pays on the source chain)',
          },
        ]),
      );
    }
  });

  it('answers 400 crosschain_unavailable for a source chain this server cannot reach', async () => {
    const inputs = { wallet: wallet(1), chain: 'ARBITRUM', token: 'USDC' };
    for (const res of await bothCalldata(token, inputs)) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message:
          'This link (USDC-base) cannot be paid from ARBITRUM USDC on this server; its paymentOptions list the sources it can',
        code: 'crosschain_unavailable',
      });
    }
  });

  it('refuses chain and token on a Tron link, before its wallet is read', async () => {
    const inputs = { wallet: wallet(1), chain: 'ARBITRUM', token: 'USDT' };
    for (const res of await bothCalldata(tronToken, inputs)) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message:
          'Tron links are paid on Tron only: send neither chain nor token (cross-chain routes start and end on EVM networks)',
        code: 'crosschain_unavailable',
      });
    }
  });

  it('answers 400 for isSafe=true without a wallet', async () => {
    for (const res of await bothCalldata(token, { isSafe: 'true' })) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject(
        validationFailed([
          { field: 'wallet', message: 'is required with isSafe=true (the multisig address)' },
        ]),
      );
    }
  });

  it('answers 400 for isSafe=true with an eoaWallet', async () => {
    for (const res of await bothCalldata(token, {
      isSafe: 'true',
      wallet: wallet(1),
      eoaWallet: wallet(2),
    })) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject(
        validationFailed([{ field: 'eoaWallet', message: 'cannot be combined with isSafe=true' }]),
      );
    }
  });

  it.each([
    ['wallet', { wallet: 'not-a-wallet' }],
    ['wallet', { wallet: '0x1234' }],
    ['wallet', { wallet: TRON_WALLET }],
    ['eoaWallet', { wallet: wallet(1), eoaWallet: '0xzz' }],
  ])('answers 400 for a malformed %s on an EVM link (%j)', async (field, inputs) => {
    for (const res of await bothCalldata(token, inputs)) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject(
        validationFailed([
          { field, message: 'must be an EVM address (0x followed by 40 hex digits)' },
        ]),
      );
    }
  });

  it('answers 400 for an EVM wallet on a Tron link, and for isSafe on Tron', async () => {
    for (const res of await bothCalldata(tronToken, { wallet: wallet(1) })) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject(
        validationFailed([{ field: 'wallet', message: 'must be a Tron address (T…)' }]),
      );
    }
    for (const res of await bothCalldata(tronToken, { isSafe: 'true', wallet: TRON_WALLET })) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: 'safe_not_supported' });
    }
  });

  it.each([
    ['an unknown chain', { chain: 'SOLANA', token: 'USDC' }],
    ['an unknown source token', { chain: 'BASE', token: 'DAI' }],
    ['an isSafe that is not true/false', { isSafe: 'yes' }],
    ['an empty wallet', { wallet: '' }],
  ])('answers 400 Validation failed for %s', async (_case, inputs) => {
    for (const res of await bothCalldata(token, inputs)) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toBe('Validation failed');
    }
  });
});

describe('GET /{token}/pay and POST /{token}/calldata: the calldata', () => {
  it('returns the same single calldata from both, with no wallet and no chain read', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '3' }]);
    const [row] = await requestRows(link.requestIds);
    const readsBefore = rpcCalls.length;

    const viaQuery = await pay(link.token, {});
    const viaBody = await calldata(link.token, {});
    const viaNoBody = await calldata(link.token, undefined);
    const viaClientId = await calldata(link.token, {}, browser(shop));
    for (const res of [viaQuery, viaBody, viaNoBody, viaClientId])
      expect(res.statusCode, res.body).toBe(200);
    expect(viaBody.json()).toEqual(viaQuery.json());
    expect(viaNoBody.json()).toEqual(viaQuery.json());
    expect(viaClientId.json()).toEqual(viaQuery.json());
    expect(rpcCalls.length).toBe(readsBefore);

    const body = viaQuery.json();
    expect(body).toMatchObject({
      paymentType: 'single',
      feeBundle: null,
      // 0.31.0's: the request's reference, and a payer paying the link's payee.
      paymentReference: `0x${row?.paymentReference}`,
      flow: 'incoming',
      metadata: {
        stepsRequired: 2,
        needsApproval: true,
        approvalTransactionIndex: 0,
        paymentTransactionIndex: 1,
        requiredAmount: '3',
      },
    });
    const [approve, payment] = body.transactions as { to: string; data: Hex; chainId: number }[];
    expect(body.transactions.map((tx: { chainType: string }) => tx.chainType)).toEqual([
      'evm',
      'evm',
    ]);
    expect(approve?.to).toBe(BASE_USDC);
    expect(decodeFunctionData({ abi: erc20Abi, data: approve?.data ?? '0x' }).args).toEqual([
      BASE_ERC20_FEE_PROXY,
      3_000_000n,
    ]);
    expect(payment?.to).toBe(BASE_ERC20_FEE_PROXY);
    expect(payment?.chainId).toBe(BASE_CHAIN_ID);
    expect(decodeFunctionData({ abi: erc20FeeProxyAbi, data: payment?.data ?? '0x' }).args).toEqual(
      [
        BASE_USDC,
        dest.walletAddress,
        3_000_000n,
        referenceBytes(row?.paymentReference ?? ''),
        0n,
        zeroAddress,
      ],
    );
  });

  it('returns the same batch calldata from both, with no chain read', async () => {
    const a = await destination(shop);
    const b = await destination(shop);
    const link = await createLink(shop, [
      { destinationId: a.destinationId, amount: '1' },
      { destinationId: b.destinationId, amount: '2' },
    ]);
    const readsBefore = rpcCalls.length;
    const [viaQuery, viaBody] = await bothCalldata(link.token, { isSafe: 'false' });
    expect(viaQuery?.statusCode, viaQuery?.body).toBe(200);
    expect(viaBody?.statusCode, viaBody?.body).toBe(200);
    expect(viaBody?.json()).toEqual(viaQuery?.json());
    expect(rpcCalls.length).toBe(readsBefore);
    expect(viaQuery?.json().batchPaymentTransaction).toMatchObject({
      to: BASE_BATCH_PAYMENTS,
      chainId: BASE_CHAIN_ID,
    });
    expect(viaQuery?.json().ERC20ApprovalTransactions).toHaveLength(1);
  });

  it('returns the same Tron calldata from both', async () => {
    const tron = await destination(shop, {
      walletAddress: TRON_WALLET,
      chainId: TRON_CHAIN_ID,
      tokenAddress: TRON_USDT,
    });
    const link = await createLink(shop, [{ destinationId: tron.destinationId, amount: '4' }]);
    const [viaQuery, viaBody] = await bothCalldata(link.token, {});
    expect(viaQuery?.statusCode, viaQuery?.body).toBe(200);
    expect(viaBody?.json()).toEqual(viaQuery?.json());
    expect(
      viaQuery?.json().transactions.map((tx: { contractAddress: string }) => tx.contractAddress),
    ).toEqual([TRON_USDT, TRON_ERC20_FEE_PROXY]);
    expect(viaQuery?.json().transactions.map((tx: { chainType: string }) => tx.chainType)).toEqual([
      'tron',
      'tron',
    ]);
  });

  it('reads the chain only when a wallet is given (this RPC fails: 503)', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '3' }]);
    const readsBefore = rpcCalls.length;
    for (const res of await bothCalldata(link.token, { wallet: wallet(77) })) {
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json()).toMatchObject({
        message: 'Network base did not answer; try again shortly',
        code: 'chain_rpc_failed',
      });
    }
    expect(rpcCalls.length).toBeGreaterThan(readsBefore);
  });
});

describe('GET /{token}/pay: what is still due', () => {
  async function paid(requestId: string, amount: bigint, status: 'partially_paid' | 'paid') {
    await t.db
      .update(requests)
      .set({ totalAmountPaid: amount, status })
      .where(eq(requests.requestId, requestId));
  }

  it('asks only for the rest of a partly paid request', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '3' }]);
    await paid(link.requestIds[0] ?? '', 1_250_000n, 'partially_paid');

    const res = await pay(link.token, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().metadata.requiredAmount).toBe('1.75');
    const [approve, payment] = res.json().transactions as { data: Hex }[];
    expect(decodeFunctionData({ abi: erc20Abi, data: approve?.data ?? '0x' }).args[1]).toBe(
      1_750_000n,
    );
    expect(decodeFunctionData({ abi: erc20FeeProxyAbi, data: payment?.data ?? '0x' }).args[2]).toBe(
      1_750_000n,
    );
  });

  it('leaves out a request of a batch paid in full, and pays the rest of the others', async () => {
    const a = await destination(shop);
    const b = await destination(shop);
    const link = await createLink(shop, [
      { destinationId: a.destinationId, amount: '1' },
      { destinationId: b.destinationId, amount: '2' },
    ]);
    const [first, second] = link.requestIds;
    await paid(first ?? '', 1_000_000n, 'paid');
    await paid(second ?? '', 500_000n, 'partially_paid');
    const [row] = await requestRows([second ?? '']);

    const res = await pay(link.token, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      paymentType: 'single',
      metadata: { requiredAmount: '1.5' },
    });
    const payment = (res.json().transactions as { data: Hex }[])[1];
    expect(decodeFunctionData({ abi: erc20FeeProxyAbi, data: payment?.data ?? '0x' }).args).toEqual(
      [
        BASE_USDC,
        b.walletAddress,
        1_500_000n,
        referenceBytes(row?.paymentReference ?? ''),
        0n,
        zeroAddress,
      ],
    );
  });

  it('answers 409 as for a completed link once every request is paid', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '2' }]);
    await paid(link.requestIds[0] ?? '', 2_000_000n, 'paid');
    const res = await pay(link.token, {});
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'secure_payment_completed',
      status: 'completed',
      requestStatuses: [{ requestId: link.requestIds[0], hasBeenPaid: true, txHash: null }],
    });
  });
});
