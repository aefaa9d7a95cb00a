import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import {
  encodeAbiParameters,
  encodeFunctionData,
  type LocalAccount,
  parseAbi,
  parseAbiParameters,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmToTron, tronToEvm } from '../../src/chains/tron-address.ts';
import { createTronGridClient } from '../../src/chains/tron-grid.ts';
import { createLeaderLock } from '../../src/db/leader-lock.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { createIndexer, type Indexer } from '../../src/detection/indexer.ts';
import { createTronBlockSource } from '../../src/detection/tron-source.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createSettlement } from '../../src/workers/settlement.ts';
import { createRealClock, createTestApp, type TestApp } from '../app.ts';
import { launchChromium } from '../browser.ts';
import { accountOf, sendAll } from '../chain.ts';
import { type FakeTronNode, startFakeTronNode } from '../fake-tron-node.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { screen, text } from '../pay-page/page.ts';
import { ARTIFACTS } from '../pay-page/rig.ts';
import { installTestTronLink, type TestTronLink } from '../pay-page/tron-wallet.ts';
import { freePort } from '../process.ts';
import { placeTronBatch } from '../tron-world.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher } from '../workers.ts';

/**
 * A payer pays a Tron link on the hosted page in a real Chromium with TronLink (a test
 * TronLink that signs in the test process), against a Tron network standing in over real
 * HTTP: the full node checks each signed transaction and runs it on the real fee-proxy and
 * token bytecode, TronGrid indexes its events, and payment detection completes the link.
 */

const TRON_CHAIN_ID = 728126428;
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const PROXY = 'TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd';
const TOKEN_ABI = parseAbi([
  'function mint(address to, uint256 amount)',
  'function balanceOf(address) view returns (uint256)',
]);
/** Sandbox wallets: the payee, then one payer per test, then a second payee. */
const PAYEE = 1;
const PAYERS = { pay: 2, decline: 3, fees: 4, payout: 0, multicall: 5 } as const;
const SECOND_PAYEE = 6;

let evm: LocalChain;
let node: FakeTronNode;
let t: TestApp;
let origin: string;
let tenant: Tenant;
let receiver: Receiver;
let indexer: Indexer;
let dispatcher: Dispatcher;
let browser: Browser;
let destinationId: string;

beforeAll(async () => {
  // The EVM the Tron contracts run on: the sandbox's token and fee proxy, copied to the
  // 20-byte forms of Tron's USDT and ERC20FeeProxy addresses.
  evm = await startLocalChain({ chainId: 31337, walletCount: 7 });
  for (const [tron, from] of [
    [USDT, evm.addresses.usdt],
    [PROXY, evm.addresses.erc20FeeProxy],
  ] as const) {
    const code = await evm.client.getCode({ address: from });
    await evm.provider.request({
      method: 'hardhat_setCode',
      params: [tronToEvm(tron), code],
    });
  }
  for (const payer of Object.values(PAYERS)) {
    await sendAll(evm, accountOf(evm, payer), [
      {
        to: tronToEvm(USDT),
        data: encodeFunctionData({
          abi: TOKEN_ABI,
          functionName: 'mint',
          args: [accountOf(evm, payer).address, 100_000_000n],
        }),
        value: '0x0',
        chainId: evm.chainId,
      },
    ]);
  }
  // And the batch contract a multicall payout pays through.
  await placeTronBatch(evm);
  node = await startFakeTronNode({ chain: evm, proxy: PROXY });

  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await createTestApp({
    env: { BASE_URL: origin, PAY_URL: origin, ALLOW_LOCAL_WEBHOOKS: 'true' },
    clock: createRealClock(),
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  const hook = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { url: receiver.url },
  });
  expect(hook.statusCode, hook.body).toBe(201);
  const target = resolveTarget(t.chains, {
    walletAddress: evmToTron(accountOf(evm, PAYEE).address),
    chainId: TRON_CHAIN_ID,
    tokenAddress: USDT,
  });
  destinationId = (await activateDestination(t.db, t.clock, tenant.accountId, target))
    .destinationId;

  indexer = createIndexer({
    db: t.db,
    clock: t.clock,
    logger: t.app.log as never,
    chains: t.chains,
    network: 'tron',
    source: createTronBlockSource({
      client: createTronGridClient({ baseUrl: node.url }),
      proxyAddress: PROXY,
      network: 'tron',
    }),
    confirmations: 1,
    lock: createLeaderLock(t.database, 'test:indexer:tron-pay-page'),
    sink: createSettlement({ chains: t.chains }),
  });
  indexer.start(200);
  dispatcher = testDispatcher(t);
  dispatcher.start(200);
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await indexer?.stop();
  await dispatcher?.stop();
  await receiver?.close();
  await node?.close();
  await t?.close();
  await evm?.close();
});

async function link(amount: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { requests: [{ destinationId, amount }], reference: 'tron-order' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().token;
}

/** The link's page in a fresh browser; with TronLink installed unless `payer` is null. */
async function open(token: string, payer: number | null) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const tronLink: TestTronLink | null =
    payer === null
      ? null
      : await installTestTronLink(context, {
          account: accountOf(evm, payer) as LocalAccount,
          nodeUrl: node.url,
        });
  const page = await context.newPage();
  await page.goto(`${origin}/?token=${token}`);
  await screen(page, 'pending');
  return { context, page, tronLink };
}

async function balance(owner: number): Promise<bigint> {
  return evm.client.readContract({
    address: tronToEvm(USDT),
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [accountOf(evm, owner).address],
  });
}

const payWithTronLink = (page: Page) =>
  page.getByRole('button', { name: 'Pay with TronLink' }).click();

/** A Tron payout link from the sandbox wallet `creator` to `payee`. */
async function payout(amount: string, creator: number, payee = PAYEE): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments/payouts',
    headers: { 'x-api-key': tenant.apiKey },
    payload: {
      recipient: evmToTron(accountOf(evm, payee).address),
      creatorWalletAddress: evmToTron(accountOf(evm, creator).address),
      network: 'tron',
      currency: 'USDT-tron',
      amount,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().token;
}

describe('paying a Tron link with TronLink', () => {
  it('approves, pays and follows the link to completed; the payee holds the USDT', async () => {
    const token = await link('7.25');
    const before = await balance(PAYEE);
    const { context, page, tronLink } = await open(token, PAYERS.pay);
    expect(await text(page, 'h1')).toBe('Pay 7.25 USDT');
    expect(await text(page, '[data-field="network"]')).toBe('Tron');
    expect(await text(page, '[data-field="payee"]')).toBe(evmToTron(accountOf(evm, PAYEE).address));

    await payWithTronLink(page);
    await screen(page, 'completed');
    expect(await text(page, 'h1')).toBe('Paid 7.25 USDT');
    await page.screenshot({ path: `${ARTIFACTS}/tron-completed-1280x800.png`, fullPage: true });

    // Two transactions, each signed in TronLink, checked by the node and run on the contracts.
    expect(tronLink?.calls.filter((c) => c === 'sign')).toHaveLength(2);
    expect(tronLink?.sent).toHaveLength(2);
    expect(node.executed).toEqual(expect.arrayContaining(tronLink?.sent ?? ['none']));
    expect(await balance(PAYEE)).toBe(before + 7_250_000n);

    // Detection recorded the payment under its Tron transaction id.
    const paymentId = tronLink?.sent[1];
    const found = await t.app.inject({
      method: 'GET',
      url: `/v2/payments?txHash=0x${paymentId}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json().payments).toEqual([
      expect.objectContaining({
        amount: '7.25',
        destinationNetwork: 'tron',
        destinationTxHash: null,
        payerAddress: tronLink?.address,
      }),
    ]);

    // The merchant heard each step, with the wallet's base58 address only as its hash.
    const events = await userEvents(token, 3);
    expect(events.map((e) => e.userEvent).sort()).toEqual([
      'payment_approved_in_wallet',
      'payment_sent_to_wallet',
      'wallet_connected',
    ]);
    const hashed = createHash('sha256')
      .update(tronLink?.address ?? '')
      .digest('hex');
    for (const event of events) {
      expect(event.properties).toMatchObject({
        wallet_provider: 'tronlink',
        wallet_address_hashed: hashed,
        selected_source_chain: 'tron',
      });
    }
    expect(
      events.find((e) => e.userEvent === 'payment_approved_in_wallet')?.properties,
    ).toMatchObject({
      payment_submission_id: paymentId,
      payment_submission_id_type: 'transaction_hash',
    });
    await context.close();
  });

  it('says the payer declined in TronLink, and pays when the payer tries again', async () => {
    const token = await link('1.5');
    const before = await balance(PAYEE);
    const { context, page, tronLink } = await open(token, PAYERS.decline);
    if (!tronLink) throw new Error('no TronLink');
    tronLink.declineNext = 1;
    await payWithTronLink(page);
    expect(await text(page, '[role="alert"]')).toBe(
      'You declined in your wallet, so nothing was sent. You can try again.',
    );
    expect(tronLink.sent).toHaveLength(0);
    await payWithTronLink(page);
    await screen(page, 'completed');
    expect(tronLink.sent).toHaveLength(2);
    expect(await balance(PAYEE)).toBe(before + 1_500_000n);
    await context.close();
  });

  it('explains a payer short of TRX for the network fee, whether the node refuses or the transaction runs out of energy', async () => {
    const token = await link('2');
    const before = await balance(PAYEE);
    const { context, page, tronLink } = await open(token, PAYERS.fees);
    if (!tronLink) throw new Error('no TronLink');
    const noTrx =
      'This wallet does not hold enough TRX for the network fee (energy and bandwidth). Add TRX to it, then try again.';
    // The node's words are hex-encoded text; only they say what is short.
    node.refuseNext(
      'CONTRACT_VALIDATE_ERROR',
      'Validate TransferContract error, balance is not sufficient.',
    );
    await payWithTronLink(page);
    expect(await text(page, '[role="alert"]')).toBe(noTrx);
    expect(tronLink.sent).toHaveLength(0);

    node.runOutOfEnergyNext();
    await payWithTronLink(page);
    await page.getByText(noTrx).waitFor({ timeout: 30_000 });
    expect(tronLink.sent).toHaveLength(1);
    expect(await balance(PAYEE)).toBe(before);
    await context.close();
  });

  it('has a node that takes only what the owner signed', async () => {
    const payer = accountOf(evm, PAYERS.fees) as LocalAccount;
    const stranger = accountOf(evm, PAYEE) as LocalAccount;
    const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${node.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    const hex41 = (address: string) => `41${address.slice(2).toLowerCase()}`;
    const built = await post('/wallet/triggersmartcontract', {
      owner_address: hex41(payer.address),
      contract_address: hex41(tronToEvm(USDT)),
      function_selector: 'approve(address,uint256)',
      parameter: encodeAbiParameters(parseAbiParameters('address, uint256'), [
        tronToEvm(PROXY),
        1n,
      ]).slice(2),
      fee_limit: 100_000_000,
      call_value: 0,
    });
    const tx = built.transaction as { txID: string; raw_data: Record<string, unknown> };
    const signedBy = async (account: LocalAccount) =>
      (await account.sign?.({ hash: `0x${tx.txID}` }))?.slice(2);
    const refusal = async (body: unknown) =>
      (await post('/wallet/broadcasttransaction', body)).code;

    expect(await refusal({ ...tx, signature: [await signedBy(stranger)] })).toBe('SIGERROR');
    expect(
      await refusal({
        ...tx,
        raw_data: { ...tx.raw_data, fee_limit: 1 },
        signature: [await signedBy(payer)],
      }),
    ).toBe('SIGERROR');
    const good = { ...tx, signature: [await signedBy(payer)] };
    expect(await post('/wallet/broadcasttransaction', good)).toEqual({
      result: true,
      txid: tx.txID,
    });
    expect(await refusal(good)).toBe('DUP_TRANSACTION_ERROR');
  });

  it('refuses a Tron payout link to another TronLink account, and sends it from the creator’s', async () => {
    const token = await payout('2.5', PAYERS.payout);
    const creator = evmToTron(accountOf(evm, PAYERS.payout).address);
    const before = await balance(PAYEE);

    const stranger = await open(token, PAYERS.decline);
    expect(await text(stranger.page, 'h1')).toMatch(/^Send 2\.5 USDT to T\S+…\S{4}$/);
    await payWithTronLink(stranger.page);
    expect(await text(stranger.page, '[role="alert"]')).toBe(
      `Only the wallet that created this payout can send it: ${creator}. This wallet is ${stranger.tronLink?.address}. Connect that wallet, then try again.`,
    );
    expect(stranger.tronLink?.calls).toEqual(['request']);
    expect(stranger.tronLink?.sent).toEqual([]);
    await stranger.context.close();

    const own = await open(token, PAYERS.payout);
    await payWithTronLink(own.page);
    await screen(own.page, 'completed');
    expect(own.tronLink?.sent).toHaveLength(2);
    expect(await balance(PAYEE)).toBe(before + 2_500_000n);
    await own.context.close();
  });

  it('pays a multicall payout: one approval, then the batch call with its array parameters', async () => {
    const children = [
      await payout('1.25', PAYERS.multicall),
      await payout('2', PAYERS.multicall, SECOND_PAYEE),
    ];
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/multicall-payouts',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { childTokens: children },
    });
    expect(created.statusCode, created.body).toBe(201);
    const token: string = created.json().token;
    const before = await Promise.all([balance(PAYEE), balance(SECOND_PAYEE)]);

    const { context, page, tronLink } = await open(token, PAYERS.multicall);
    expect(await text(page, 'h1')).toBe('Send 3.25 USDT to 2 recipients');
    await payWithTronLink(page);
    await screen(page, 'completed');
    // TronLink built both calls on the node from the parameters the page passed on, the batch
    // call's arrays (address[], uint256[], bytes[]) as arrays: the node ran them on the contracts.
    expect(tronLink?.calls.filter((c) => c === 'triggerSmartContract')).toHaveLength(2);
    expect(tronLink?.sent).toHaveLength(2);
    expect(node.executed).toEqual(expect.arrayContaining(tronLink?.sent ?? ['none']));
    const after = await Promise.all([balance(PAYEE), balance(SECOND_PAYEE)]);
    expect(after.map((a, i) => a - (before[i] ?? 0n))).toEqual([1_250_000n, 2_000_000n]);
    await context.close();

    const view = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/multicall-payouts/${token}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(view.json()).toMatchObject({ status: 'completed', executionKind: 'tron_batch' });
  });

  it('says so when the browser has no TronLink, or TronLink shares no account', async () => {
    const token = await link('3');
    const bare = await open(token, null);
    // Read once the wallet code has replaced "Looking for wallets…", which is muted too.
    const none = bare.page.locator('[data-screen="pending"] .wallets .muted', {
      hasNotText: 'Looking for wallets',
    });
    await none.waitFor({ timeout: 30_000 });
    expect(await none.textContent()).toBe(
      'No Tron wallet found in this browser. Install TronLink, or open this page in its browser.',
    );
    expect(await bare.page.getByRole('button', { name: 'Pay with TronLink' }).count()).toBe(0);
    await bare.context.close();

    const locked = await open(token, PAYERS.fees);
    if (!locked.tronLink) throw new Error('no TronLink');
    locked.tronLink.locked = true;
    await payWithTronLink(locked.page);
    expect(await text(locked.page, '[role="alert"]')).toBe(
      'TronLink shared no account. Unlock it, allow this site, then try again.',
    );
    expect(locked.tronLink.calls).toEqual(['request']);
    await locked.context.close();
  });
});

interface UserEventBody {
  readonly userEvent: string;
  readonly properties: Record<string, string>;
}

/** The `secure_payment.user_event` deliveries of `token`, once `count` have arrived. */
async function userEvents(token: string, count: number): Promise<UserEventBody[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const events = receiver.received
      .map((r) => r.body)
      .filter((b) => b.event === 'secure_payment.user_event' && b.securePaymentToken === token)
      .map((b) => b as unknown as UserEventBody);
    if (events.length >= count || Date.now() > deadline) return events;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
