import { type Address, custom, erc20Abi, getAddress, type Hex } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, sendAll } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import {
  callsOf,
  deployBatchAccount,
  executeAsOwner,
  executeRelayed,
  permitCall,
  signPermit,
} from '../smart-account.ts';
import { testIndexer } from '../workers.ts';

/**
 * Smart-account payers end to end on the sandbox chain: `/pay?wallet=<account>&eoaWallet=<owner>`
 * for a link, the owner EOA's tokens paid through a BatchAccount (src/sandbox/contracts) in one
 * atomic execution. TST takes EIP-2612 permits (the owner only signs; a relayer sends the
 * batch), DAI does not (the owner approves the account first). The native currency is refused.
 * Detection names the account as payerAddress and the owner as payerEoaAddress.
 */

const SANDBOX_CHAIN_ID = 31337;

let chain: LocalChain;
let t: TestApp;
let tenant: Tenant;
let indexer: Indexer;
let snapshot: Hex;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: SANDBOX_CHAIN_ID, walletCount: 6 });
  t = await createTestApp({
    env: { SANDBOX: 'true' },
    transports: { sandbox: custom(chain.provider, { retryCount: 0 }) },
    sandbox: { provider: chain.provider },
  });
  tenant = await createTenant(t.db);
  indexer = testIndexer(t, { network: 'sandbox', confirmations: 0 });
});
afterAll(async () => {
  await t.close();
  await chain.close();
});
beforeEach(async () => {
  snapshot = await chain.snapshot();
});
afterEach(async () => {
  await chain.revert(snapshot);
});

const headers = () => ({ 'x-client-id': tenant.backendClientId });
const PAYEE = () => accountOf(chain, 1).address;

/** A token's address; the native currency's placeholder as destinations name it. */
function tokenOf(currencyId: string): Address {
  if (currencyId === 'ETH-sandbox') return '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
  const address = t.chains.currency(currencyId)?.address;
  if (!address) throw new Error(currencyId);
  return getAddress(address);
}

const balance = (token: Address, owner: Address) =>
  chain.client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  });

/** A link paying `amount` of each currency to wallet 1 (one destination at a time). */
async function createLink(
  items: readonly (readonly [currencyId: string, amount: string])[],
): Promise<{ token: string; requestIds: string[] }> {
  const requests = [];
  for (const [currencyId, amount] of items) {
    const target = resolveTarget(t.chains, {
      walletAddress: PAYEE(),
      chainId: SANDBOX_CHAIN_ID,
      tokenAddress: tokenOf(currencyId),
    });
    const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
    requests.push({ destinationId, amount });
  }
  const created = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: headers(),
    payload: { requests },
  });
  expect(created.statusCode, created.body).toBe(201);
  return { token: created.json().token, requestIds: created.json().requestIds };
}

function pay(token: string, query: string) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?${query}`,
    headers: headers(),
  });
}

/** The request's recorded payments, once the indexer has read the chain. */
async function paymentsOf(requestId: string) {
  await indexer.tick();
  const status = await t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}`,
    headers: headers(),
  });
  expect(status.statusCode, status.body).toBe(200);
  return status.json() as {
    hasBeenPaid: boolean;
    payerAddress?: string | null;
    payerEoaAddress?: string | null;
    payments: { payerAddress: string | null; payerEoaAddress: string | null }[];
  };
}

describe('a smart account paying with its owner EOA’s tokens', () => {
  it('pays a permit token in one relayed execution: the EOA signs and sends nothing', async () => {
    const owner = accountOf(chain, 2);
    const relayer = accountOf(chain, 3);
    const account = await deployBatchAccount(chain, owner.address);
    const tst = tokenOf('TST-sandbox');
    const amount = 12_345_678_901_234_567_891n;
    const { token, requestIds } = await createLink([['TST-sandbox', '12.345678901234567891']]);
    const before = {
      owner: await balance(tst, owner.address),
      payee: await balance(tst, PAYEE()),
      relayer: await balance(tst, relayer.address),
      ownerEth: await chain.client.getBalance({ address: owner.address }),
      ownerNonce: await chain.client.getTransactionCount({ address: owner.address }),
    };

    const res = await pay(token, `wallet=${account}&eoaWallet=${owner.address}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.eoaApprovalTransactions).toEqual([]);
    expect(body.metadata).toMatchObject({
      eoaApprovalRequired: true,
      eoaApproval: {
        owner: owner.address,
        spender: account,
        tokenAddress: tst,
        currency: 'TST-sandbox',
        amount: '12.345678901234567891',
        approvalType: 'unlimited',
      },
      eoaApprovalPermit: {
        domain: {
          name: 'TestToken',
          version: '1',
          chainId: SANDBOX_CHAIN_ID,
          verifyingContract: tst,
        },
        primaryType: 'Permit',
        message: {
          owner: owner.address,
          spender: account,
          value: (2n ** 256n - 1n).toString(),
          nonce: '0',
        },
      },
      // Balances are the EOA's: the account holds nothing.
      hasEnoughBalance: true,
      balance: '1000000',
      requiredAmount: '12.345678901234567891',
      stepsRequired: 3,
      needsApproval: true,
      approvalTransactionIndex: 1,
      paymentTransactionIndex: 2,
    });
    expect(body.transactions).toHaveLength(3);

    const signature = await signPermit(owner, body.metadata.eoaApprovalPermit);
    const hash = await executeRelayed(chain, owner, relayer, account, [
      permitCall(tst, body.metadata.eoaApprovalPermit, signature),
      ...callsOf(body.transactions),
    ]);
    const receipt = await chain.client.getTransactionReceipt({ hash });
    expect(receipt.from).toBe(relayer.address.toLowerCase());

    expect(await balance(tst, owner.address)).toBe(before.owner - amount);
    expect(await balance(tst, PAYEE())).toBe(before.payee + amount);
    expect(await balance(tst, account)).toBe(0n);
    expect(await balance(tst, relayer.address)).toBe(before.relayer);
    expect(await chain.client.getBalance({ address: owner.address })).toBe(before.ownerEth);
    expect(await chain.client.getTransactionCount({ address: owner.address })).toBe(
      before.ownerNonce,
    );

    const status = await paymentsOf(requestIds[0] ?? '');
    expect(status.hasBeenPaid).toBe(true);
    expect(status.payments).toEqual([
      expect.objectContaining({ payerAddress: account, payerEoaAddress: owner.address }),
    ]);
  });

  it('pays a token without permit once the EOA has sent the approval it is given', async () => {
    const owner = accountOf(chain, 4);
    const account = await deployBatchAccount(chain, owner.address);
    const dai = tokenOf('DAI-sandbox');
    const amount = 250_000_000_000_000_000_001n;
    const { token, requestIds } = await createLink([['DAI-sandbox', '250.000000000000000001']]);
    const before = {
      owner: await balance(dai, owner.address),
      payee: await balance(dai, PAYEE()),
    };

    const first = await pay(token, `wallet=${account}&eoaWallet=${owner.address}`);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().metadata).toMatchObject({
      eoaApprovalRequired: true,
      eoaApproval: { owner: owner.address, spender: account, approvalType: 'unlimited' },
    });
    expect(first.json().metadata.eoaApprovalPermit).toBeUndefined();
    expect(first.json().eoaApprovalTransactions).toEqual([
      {
        to: dai,
        data: `0x095ea7b3${account.slice(2).toLowerCase().padStart(64, '0')}${'f'.repeat(64)}`,
        value: '0x0',
        chainId: SANDBOX_CHAIN_ID,
      },
    ]);
    await sendAll(chain, owner, first.json().eoaApprovalTransactions);

    // Approved: nothing more is asked of the EOA; the account runs the rest as one batch.
    const second = await pay(token, `wallet=${account}&eoaWallet=${owner.address}`);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().eoaApprovalTransactions).toEqual([]);
    expect(second.json().metadata).toMatchObject({ eoaApprovalRequired: false });
    expect(second.json().metadata.eoaApproval).toBeUndefined();
    await executeAsOwner(chain, owner, account, callsOf(second.json().transactions));

    expect(await balance(dai, owner.address)).toBe(before.owner - amount);
    expect(await balance(dai, PAYEE())).toBe(before.payee + amount);
    expect(await balance(dai, account)).toBe(0n);
    const status = await paymentsOf(requestIds[0] ?? '');
    expect(status.payments).toEqual([
      expect.objectContaining({ payerAddress: account, payerEoaAddress: owner.address }),
    ]);
  });

  it('reads the balance of the EOA, not of the account', async () => {
    const owner = accountOf(chain, 5);
    const account = await deployBatchAccount(chain, owner.address);
    const tst = tokenOf('TST-sandbox');
    // The account holds plenty; its owner nothing.
    await sendAll(chain, owner, [
      {
        to: tst,
        data: `0xa9059cbb${account.slice(2).toLowerCase().padStart(64, '0')}${(
          await balance(tst, owner.address)
        )
          .toString(16)
          .padStart(64, '0')}`,
        value: '0x0',
        chainId: SANDBOX_CHAIN_ID,
      },
    ]);
    const { token } = await createLink([['TST-sandbox', '1']]);
    const res = await pay(token, `wallet=${account}&eoaWallet=${owner.address}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().metadata).toMatchObject({ hasEnoughBalance: false, balance: '0' });
  });

  it('refuses the native currency with 400 smart_account_native_unsupported', async () => {
    const owner = accountOf(chain, 2);
    const account = await deployBatchAccount(chain, owner.address);
    const { token } = await createLink([['ETH-sandbox', '0.01']]);
    const res = await pay(token, `wallet=${account}&eoaWallet=${owner.address}`);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      code: 'smart_account_native_unsupported',
      message:
        'Smart-account payments (eoaWallet) cannot pay in the native currency; pay from the wallet that holds it, without eoaWallet',
    });
  });

  it('refuses a link of several requests, and an eoaWallet without the account', async () => {
    const owner = accountOf(chain, 2);
    const account = await deployBatchAccount(chain, owner.address);
    const { token } = await createLink([
      ['DAI-sandbox', '1'],
      ['DAI-sandbox', '2'],
    ]);
    const batch = await pay(token, `wallet=${account}&eoaWallet=${owner.address}`);
    expect(batch.statusCode, batch.body).toBe(400);
    expect(batch.json()).toMatchObject({
      code: 'smart_account_unsupported',
      message:
        'Smart-account payments (eoaWallet) pay links of one request; pay this one from the wallet that holds the funds, without eoaWallet',
    });
    const alone = await pay(token, `eoaWallet=${owner.address}`);
    expect(alone.statusCode, alone.body).toBe(400);
    expect(alone.json()).toMatchObject({
      code: 'validation_failed',
      errors: [
        {
          field: 'wallet',
          message: 'is required with eoaWallet (the smart account that executes the payment)',
        },
      ],
    });
    // The same wallet twice is a wallet paying from its own balance.
    const same = await pay(token, `wallet=${owner.address}&eoaWallet=${owner.address}`);
    expect(same.statusCode, same.body).toBe(200);
    expect(same.json().ERC20ApprovalTransactions).toBeDefined();
  });
});
