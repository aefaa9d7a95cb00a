import { decodeFunctionData, getAddress, type Hex, parseAbi, parseEventLogs } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmToTron, tronToEvm } from '../../src/chains/tron-address.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { erc20Abi, erc20FeeProxyAbi } from '../../src/payments/abis.ts';
import { referenceTopic } from '../../src/payments/references.ts';
import type { TronTransaction } from '../../src/payments/transactions.ts';
import type { LocalChain } from '../../src/sandbox/chain.ts';
import { startLocalChain } from '../../src/sandbox/chain.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, sendAll } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';

/**
 * Tron calldata, proven without a Tron node: the trigger-smart-contract parameters decode
 * against the ABI to the right call, and the very same call, sent on a local EVM to contracts
 * placed at the 20-byte forms of the Tron addresses (Tron runs the same EVM code on the same
 * 20 bytes), moves the tokens and emits the payment event.
 */

const TRON_USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TRON_PROXY = 'TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd';
const TRON_CHAIN_ID = 728126428;
const mintAbi = parseAbi([
  'function mint(address to, uint256 amount)',
  'function balanceOf(address) view returns (uint256)',
]);

let t: TestApp;
let tenant: Tenant;
let chain: LocalChain;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db);
  chain = await startLocalChain({ chainId: 31337 });
});
afterAll(async () => {
  await t.close();
  await chain.close();
});

describe('Tron calldata', () => {
  it('approves the Tron ERC20FeeProxy and calls transferFromWithReferenceAndFee, in base58', async () => {
    const payee = accountOf(chain, 1);
    const payer = accountOf(chain, 2);
    const payeeTron = evmToTron(payee.address);
    const payerTron = evmToTron(payer.address);
    const target = resolveTarget(t.chains, {
      walletAddress: payeeTron,
      chainId: TRON_CHAIN_ID,
      tokenAddress: TRON_USDT,
    });
    const destination = await activateDestination(t.db, t.clock, tenant.accountId, target);

    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { requests: [{ destinationId: destination.destinationId, amount: '42.5' }] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const [requestId] = created.json().requestIds;
    const pay = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${created.json().token}/pay?wallet=${payerTron}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(pay.statusCode, pay.body).toBe(200);
    const body = pay.json();
    expect(body.metadata).toMatchObject({
      stepsRequired: 2,
      needsApproval: true,
      paymentTransactionIndex: 1,
      requiredAmount: '42.5',
    });
    const [approve, payment] = body.transactions as TronTransaction[];
    const reference = (
      await t.app.inject({
        method: 'GET',
        url: `/v2/request/${requestId}`,
        headers: { 'x-api-key': tenant.apiKey },
      })
    ).json().paymentReference as Hex;

    expect(approve).toEqual({
      type: 'tron',
      contractAddress: TRON_USDT,
      functionSelector: 'approve(address,uint256)',
      parameters: [
        { type: 'address', value: TRON_PROXY },
        { type: 'uint256', value: '42500000' },
      ],
      feeLimit: 100_000_000,
      callValue: 0,
      data: expect.stringMatching(/^0x095ea7b3/),
      chainId: TRON_CHAIN_ID,
      chainType: 'tron',
    });
    expect(payment).toMatchObject({
      contractAddress: TRON_PROXY,
      functionSelector:
        'transferFromWithReferenceAndFee(address,address,uint256,bytes,uint256,address)',
      parameters: [
        { type: 'address', value: TRON_USDT },
        { type: 'address', value: payeeTron },
        { type: 'uint256', value: '42500000' },
        { type: 'bytes', value: reference },
        { type: 'uint256', value: '0' },
        { type: 'address', value: payerTron },
      ],
      feeLimit: 300_000_000,
      callValue: 0,
    });

    const decodedApprove = decodeFunctionData({ abi: erc20Abi, data: approve?.data ?? '0x' });
    expect(decodedApprove).toEqual({
      functionName: 'approve',
      args: [tronToEvm(TRON_PROXY), 42_500_000n],
    });
    const decodedPayment = decodeFunctionData({
      abi: erc20FeeProxyAbi,
      data: payment?.data ?? '0x',
    });
    expect(decodedPayment).toEqual({
      functionName: 'transferFromWithReferenceAndFee',
      args: [
        tronToEvm(TRON_USDT),
        getAddress(payee.address),
        42_500_000n,
        reference,
        0n,
        getAddress(payer.address),
      ],
    });

    // The same calls on an EVM: the token's and the proxy's code at the Tron addresses' 20 bytes.
    const token = tronToEvm(TRON_USDT);
    const proxy = tronToEvm(TRON_PROXY);
    for (const [at, from] of [
      [token, chain.addresses.usdt],
      [proxy, chain.addresses.erc20FeeProxy],
    ] as const) {
      const code = await chain.client.getCode({ address: from });
      await chain.provider.request({ method: 'hardhat_setCode', params: [at, code] });
    }
    await sendAll(chain, payer, [
      {
        to: token,
        data: (await import('viem')).encodeFunctionData({
          abi: mintAbi,
          functionName: 'mint',
          args: [payer.address, 100_000_000n],
        }),
        value: '0x0',
        chainId: chain.chainId,
      },
    ]);
    const hashes = await sendAll(
      chain,
      payer,
      [approve, payment].map((tx) => ({
        to: tronToEvm(tx?.contractAddress ?? ''),
        data: tx?.data ?? '0x',
        value: '0x0',
        chainId: chain.chainId,
      })),
    );
    const balance = await chain.client.readContract({
      address: token,
      abi: mintAbi,
      functionName: 'balanceOf',
      args: [payee.address],
    });
    expect(balance).toBe(42_500_000n);
    const receipt = await chain.client.getTransactionReceipt({ hash: hashes[1] as Hex });
    const [event] = parseEventLogs({ abi: erc20FeeProxyAbi, logs: receipt.logs });
    expect(event?.address.toLowerCase()).toBe(proxy.toLowerCase());
    expect(event?.topics[1]).toBe(referenceTopic(reference.slice(2)));
  });
});
