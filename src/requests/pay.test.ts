import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  parseAbi,
  parseEventLogs,
} from 'viem';
import { describe, expect, it } from 'vitest';
import { sendAll, usdcBalance } from '../../test/chain.ts';
import {
  apiKey,
  created,
  local,
  setupRequestsApp,
  t,
  tenantA,
  tenantB,
  validationErrors,
  wallet,
} from '../../test/requests.ts';
import { createClientId } from '../auth/client-ids.ts';
import { evmToTron } from '../chains/tron-address.ts';
import { erc20FeeProxyAbi } from '../payments/abis.ts';
import { referenceTopic } from '../payments/references.ts';
import type { EvmTransaction } from '../payments/transactions.ts';

/**
 * `GET /v2/request/{requestId}/pay` over HTTP on the real app, on a local EVM with the real
 * Request contracts standing in for base: the calldata of /pay is sent from a funded wallet so
 * balances on chain prove who received what.
 */

const erc20 = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function approve(address,uint256) returns (bool)',
]);

setupRequestsApp();

function pay(requestId: string, query: Record<string, string> = {}, headers = apiKey(tenantA)) {
  const search = new URLSearchParams(query).toString();
  return t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}/pay${search ? `?${search}` : ''}`,
    headers,
  });
}

interface PayTransaction {
  to: Address;
  data: Hex;
  value: { type: 'BigNumber'; hex: Hex };
}

/** The /pay transactions as a wallet sends them on the stand-in for base. */
function sendable(transactions: PayTransaction[]): EvmTransaction[] {
  return transactions.map((tx) => ({
    to: tx.to,
    data: tx.data,
    value: tx.value.hex,
    chainId: local.chain.chainId,
  }));
}

describe('GET /v2/request/{requestId}/pay', () => {
  it('returns an approval and the payment, each value as a BigNumber, without a wallet', async () => {
    const { requestId } = await created({ amount: '3' });
    const res = await pay(requestId);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.transactions).toHaveLength(2);
    for (const tx of body.transactions) {
      expect(Object.keys(tx).sort()).toEqual(['chainType', 'data', 'to', 'value']);
      expect(tx.chainType).toBe('evm');
      expect(tx.value).toEqual({ type: 'BigNumber', hex: '0x0' });
      expect(tx.to).toBe(getAddress(tx.to));
    }
    expect(body.transactions[0].to).toBe(getAddress(local.chain.addresses.usdc));
    expect(body.transactions[1].to).toBe(getAddress(local.chain.addresses.erc20FeeProxy));
    expect(body.metadata).toMatchObject({
      stepsRequired: 2,
      needsApproval: true,
      approvalTransactionIndex: 0,
      paymentTransactionIndex: 1,
      routeType: 'samechain',
      requiredAmount: '3',
    });
  });

  it('carries the native amount in value.hex', async () => {
    const { requestId } = await created({
      amount: '0.25',
      invoiceCurrency: 'ETH-base',
      paymentCurrency: 'ETH-base',
    });
    const body = (await pay(requestId, { wallet: wallet(2).address })).json();
    expect(body.transactions).toHaveLength(1);
    expect(body.transactions[0].value).toEqual({
      type: 'BigNumber',
      hex: `0x${(250_000_000_000_000_000n).toString(16)}`,
    });
    expect(body.metadata).toMatchObject({ needsApproval: false, approvalTransactionIndex: null });
    const payee = wallet(1).address;
    const before = await local.chain.client.getBalance({ address: payee });
    await sendAll(local.chain, wallet(2), sendable(body.transactions));
    expect((await local.chain.client.getBalance({ address: payee })) - before).toBe(
      250_000_000_000_000_000n,
    );
  });

  it('has approvalTransactionIndex null when the allowance already covers the payment', async () => {
    const payer = wallet(2);
    const { requestId } = await created({ amount: '5' });
    await sendAll(local.chain, payer, [
      {
        to: getAddress(local.chain.addresses.usdc),
        data: encodeFunctionData({
          abi: erc20,
          functionName: 'approve',
          args: [getAddress(local.chain.addresses.erc20FeeProxy), 5_000_000n],
        }),
        value: '0x0',
        chainId: local.chain.chainId,
      },
    ]);
    const res = await pay(requestId, { wallet: payer.address });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.transactions).toHaveLength(1);
    expect(body.metadata).toMatchObject({
      stepsRequired: 1,
      needsApproval: false,
      approvalTransactionIndex: null,
      paymentTransactionIndex: 0,
      hasEnoughAllowance: true,
      hasEnoughBalance: true,
    });
    const before = await usdcBalance(local.chain, wallet(1).address);
    await sendAll(local.chain, payer, sendable(body.transactions));
    expect((await usdcBalance(local.chain, wallet(1).address)) - before).toBe(5_000_000n);
  });

  it('pays the whole amount with the request’s payment reference', async () => {
    const payer = wallet(2);
    const { requestId, paymentReference } = await created({ amount: '12.5' });
    const body = (await pay(requestId, { wallet: payer.address })).json();
    expect(body.metadata).toMatchObject({ needsApproval: true, approvalTransactionIndex: 0 });
    const before = await usdcBalance(local.chain, wallet(1).address);
    const hashes = await sendAll(local.chain, payer, sendable(body.transactions));
    expect((await usdcBalance(local.chain, wallet(1).address)) - before).toBe(12_500_000n);
    const receipt = await local.chain.client.getTransactionReceipt({
      hash: hashes.at(-1) as Hex,
    });
    const [event] = parseEventLogs({ abi: erc20FeeProxyAbi, logs: receipt.logs });
    expect(event?.topics[1]).toBe(referenceTopic(paymentReference.slice(2)));
    expect(event?.args).toMatchObject({ amount: 12_500_000n, feeAmount: 0n });
  });

  it('pays exactly a partial amount', async () => {
    const payer = wallet(2);
    const payee = wallet(1).address;
    const { requestId } = await created({ amount: '10' });
    const res = await pay(requestId, { wallet: payer.address, amount: '4.2' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().metadata.requiredAmount).toBe('4.2');
    const payeeBefore = await usdcBalance(local.chain, payee);
    const payerBefore = await usdcBalance(local.chain, payer.address);
    await sendAll(local.chain, payer, sendable(res.json().transactions));
    expect((await usdcBalance(local.chain, payee)) - payeeBefore).toBe(4_200_000n);
    expect(payerBefore - (await usdcBalance(local.chain, payer.address))).toBe(4_200_000n);
  });

  it('refuses an amount above what is due, and malformed amounts', async () => {
    const { requestId } = await created({ amount: '10' });
    expect(validationErrors(await pay(requestId, { amount: '10.000001' }))).toEqual([
      { field: 'amount', message: 'must not exceed what is still due (10)' },
    ]);
    expect(validationErrors(await pay(requestId, { amount: '0' }))).toEqual([
      { field: 'amount', message: 'must be greater than 0' },
    ]);
    expect(validationErrors(await pay(requestId, { amount: '1.0000001' }))).toEqual([
      { field: 'amount', message: 'must have at most 6 decimal places' },
    ]);
    expect((await pay(requestId, { amount: '10' })).statusCode).toBe(200);
  });

  it('adds a 2.5% platform fee on top: the payee gets the amount, the fee address 2.5%', async () => {
    const payer = wallet(2);
    const payee = wallet(1).address;
    const feeAddress = wallet(4).address;
    const { requestId } = await created({ amount: '10' });
    const res = await pay(requestId, {
      wallet: payer.address,
      feePercentage: '2.5',
      feeAddress: feeAddress.toLowerCase(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().metadata).toMatchObject({ requiredAmount: '10.25', needsApproval: true });
    const before = {
      payee: await usdcBalance(local.chain, payee),
      fee: await usdcBalance(local.chain, feeAddress),
      payer: await usdcBalance(local.chain, payer.address),
    };
    const hashes = await sendAll(local.chain, payer, sendable(res.json().transactions));
    expect((await usdcBalance(local.chain, payee)) - before.payee).toBe(10_000_000n);
    expect((await usdcBalance(local.chain, feeAddress)) - before.fee).toBe(250_000n);
    expect(before.payer - (await usdcBalance(local.chain, payer.address))).toBe(10_250_000n);
    const receipt = await local.chain.client.getTransactionReceipt({
      hash: hashes.at(-1) as Hex,
    });
    const [event] = parseEventLogs({ abi: erc20FeeProxyAbi, logs: receipt.logs });
    expect(event?.args).toMatchObject({ amount: 10_000_000n, feeAmount: 250_000n, feeAddress });
  });

  it('takes the fee on a partial amount', async () => {
    const payer = wallet(2);
    const feeAddress = wallet(4).address;
    const { requestId } = await created({ amount: '10' });
    const res = await pay(requestId, {
      wallet: payer.address,
      amount: '4',
      feePercentage: '0.5',
      feeAddress,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().metadata.requiredAmount).toBe('4.02');
    const before = await usdcBalance(local.chain, feeAddress);
    const payeeBefore = await usdcBalance(local.chain, wallet(1).address);
    await sendAll(local.chain, payer, sendable(res.json().transactions));
    expect((await usdcBalance(local.chain, feeAddress)) - before).toBe(20_000n);
    expect((await usdcBalance(local.chain, wallet(1).address)) - payeeBefore).toBe(4_000_000n);
  });

  it('wants feePercentage and feeAddress together', async () => {
    const { requestId } = await created();
    expect(validationErrors(await pay(requestId, { feePercentage: '2.5' }))).toEqual([
      { field: 'feeAddress', message: 'feePercentage and feeAddress must be sent together' },
    ]);
    expect(validationErrors(await pay(requestId, { feeAddress: wallet(4).address }))).toEqual([
      { field: 'feePercentage', message: 'feePercentage and feeAddress must be sent together' },
    ]);
  });

  it.each(['101', '100.01', '1.234', '-1', '2,5', 'abc', ''])(
    'refuses feePercentage %j',
    async (feePercentage) => {
      const { requestId } = await created();
      const res = await pay(requestId, { feePercentage, feeAddress: wallet(4).address });
      expect(validationErrors(res)).toEqual([
        {
          field: 'feePercentage',
          message: 'must be a number from 0 to 100 with at most 2 decimals',
        },
      ]);
    },
  );

  it('accepts feePercentage 0 and 100', async () => {
    const { requestId } = await created({ amount: '10' });
    const zero = await pay(requestId, { feePercentage: '0', feeAddress: wallet(4).address });
    expect(zero.json().metadata.requiredAmount).toBe('10');
    const all = await pay(requestId, { feePercentage: '100', feeAddress: wallet(4).address });
    expect(all.json().metadata.requiredAmount).toBe('20');
  });

  it('refuses a fee address that is not on the payment network', async () => {
    const { requestId } = await created();
    for (const feeAddress of ['0x1234', evmToTron(wallet(4).address)]) {
      const res = await pay(requestId, { feePercentage: '1', feeAddress });
      expect(validationErrors(res), feeAddress).toEqual([
        { field: 'feeAddress', message: 'must be an EVM address (0x followed by 40 hex digits)' },
      ]);
    }
  });

  it('applies a client ID’s own fee instead of the call’s, and the call’s when the client ID’s is 0', async () => {
    const withFee = await createClientId(t.db, {
      accountId: tenantA.accountId,
      label: 'Takes 1.5 %',
      allowedDomains: [],
      feePercentage: '1.5',
      feeAddress: wallet(4).address,
    });
    const zeroFee = await createClientId(t.db, {
      accountId: tenantA.accountId,
      label: 'Lets calls decide',
      allowedDomains: [],
      feePercentage: '0',
      feeAddress: wallet(4).address,
    });
    const { requestId } = await created({ amount: '10' });
    const asked = { feePercentage: '5', feeAddress: wallet(3).address };
    const own = await pay(requestId, asked, { 'x-client-id': withFee.clientId });
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json().metadata.requiredAmount).toBe('10.15');
    const calls = await pay(requestId, asked, { 'x-client-id': zeroFee.clientId });
    expect(calls.json().metadata.requiredAmount).toBe('10.5');
    // An API key has no fee of its own: the call's applies.
    expect((await pay(requestId, asked)).json().metadata.requiredAmount).toBe('10.5');
    // The fee goes to the client ID's address: it is the last argument of the payment.
    const payment = own.json().transactions.at(-1).data as string;
    expect(payment.toLowerCase()).toContain(wallet(4).address.slice(2).toLowerCase());
    expect(payment.toLowerCase()).not.toContain(wallet(3).address.slice(2).toLowerCase());
  });

  it('refuses a wallet that is not an EVM address', async () => {
    const { requestId } = await created();
    expect(validationErrors(await pay(requestId, { wallet: 'nobody' }))).toEqual([
      { field: 'wallet', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
  });

  it("answers 404 for another account's request", async () => {
    const { requestId } = await created();
    const res = await pay(requestId, {}, apiKey(tenantB));
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe('Request not found');
  });
});
