import type { Hex, LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientId } from '../../src/auth/client-ids.ts';
import { evmToTron } from '../../src/chains/tron-address.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import { linkClientId } from '../../src/orchestrators/links.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import type { TronTransaction } from '../../src/payments/transactions.ts';
import {
  type FakeCompliance,
  startFakeCompliance,
} from '../../src/sandbox/compliance/fake-compliance.ts';
import { type FakeOfframp, startFakeOfframp } from '../../src/sandbox/offramp/fake-offramp.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { capturedAnswers, referenceOperations } from '../conformance.ts';
import { answerAuthOperations } from '../conformance-auth.ts';
import { type CrossChainWorld, startCrossChainWorld } from '../crosschain-world.ts';
import type { FakeTronNode } from '../fake-tron-node.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { insertPayer, transferCount } from '../offramp-world.ts';
import { bankBody, kycBody } from '../payer-world.ts';
import { pathShape } from '../reference-versions.ts';
import { signTronCall, startTronWorld, TRON_CHAIN_ID, TRON_USDT } from '../tron-world.ts';
import { startReceiver } from '../webhook-receiver.ts';
import { testIndexer } from '../workers.ts';

/**
 * Every operation of the reference API (Request API 0.13.0 and 0.31.0, Auth API 0.14.0) that
 * we serve gets at least one answer here,
 * through a real flow (a link paid on a local chain running the Request contracts, found by
 * the indexer), and every answer is checked against the reference's schema for its status (by
 * the test app, test/conformance.ts). An operation we serve with no conforming success answer
 * fails the last test: a new route implementing a reference operation must be exercised here.
 */

const USDC_BASE_ID = 'USDC-base';

/**
 * Operations we serve whose success answer does not conform yet, each with the work that
 * changes it: the coverage check expects exactly these to be missing, so one that starts
 * conforming must be taken off.
 */
const KNOWN_GAPS: Readonly<Record<string, string>> = {};

/** Operations we serve that cannot succeed here, each with why (their refusals are checked). */
const NEVER_SUCCEEDS: Readonly<Record<string, string>> = {
  'POST /v2/request/payment-intents/{paymentIntentId}':
    '0.31.0 removed it; it answers 410 naming /pay (docs/errors.md)',
  'PATCH /v1/payee-destination/wallet-change/cancel':
    'a wallet change is pending only while Safe owners sign it; ours apply at once, so there is none to cancel (404)',
};
const PAYEE_KEY = `0x${'59'.repeat(32)}` as Hex;
/** The server's commerce operator and a commerce buyer, among the local chain's wallets. */
const COMMERCE_OPERATOR = 4;
const COMMERCE_BUYER = 1;
/** The local chain's wallet that pays the Tron link (through the Tron node on the same EVM). */
const TRON_PAYER = 3;

describe('conformance with the reference API', () => {
  let local: StandIn;
  let t: TestApp;
  let tenant: Tenant;
  let indexer: Indexer;
  let tron: FakeTronNode;
  let crossChain: CrossChainWorld;
  let compliance: FakeCompliance;
  let offramp: FakeOfframp;
  const headers = () => ({ 'x-api-key': tenant.apiKey });
  const ok = (res: { statusCode: number; body: string }, status = 200) =>
    expect(res.statusCode, res.body).toBe(status);

  beforeAll(async () => {
    local = await standIn('base');
    // Tron's contracts on the same local EVM, behind a Tron node, for the Tron relay.
    tron = await startTronWorld(local.chain, [TRON_PAYER]);
    // Arbitrum and the fake routing aggregator, for the cross-chain operations.
    crossChain = await startCrossChainWorld(local);
    compliance = await startFakeCompliance({ webhookSecret: 'conformance-callback-secret' });
    // The off-ramp for crypto-to-fiat (Arbitrum's USDC): it answers deposit addresses only.
    offramp = await startFakeOfframp({ webhookSecret: 'conformance-offramp-secret' });
    t = await createTestApp({
      env: {
        COMPLIANCE_URL: compliance.url,
        OFFRAMP_URL: offramp.url,
        OFFRAMP_WEBHOOK_SECRET: 'conformance-offramp-secret',
        ...local.env,
        ...crossChain.env,
        CONFIRMATIONS_BASE: '1',
        RPC_URL_TRON: tron.url,
        COMMERCE_OPERATOR_KEY: local.chain.wallets[COMMERCE_OPERATOR]?.privateKey ?? '',
      },
      transports: { ...local.transports, ...crossChain.transports },
    });
    crossChain.useClock(t.clock);
    tenant = await createTenant(t.db);
    indexer = testIndexer(t, { confirmations: 1 });
  });
  afterAll(async () => {
    await t?.close();
    await tron?.close();
    await crossChain?.close();
    await compliance?.close();
    await offramp?.close();
    await local?.chain.close();
  });

  it('answers the currency operations, v2 and v1, with a credential or none', async () => {
    for (const version of ['v2', 'v1']) {
      ok(await t.app.inject({ method: 'GET', url: `/${version}/currencies`, headers: headers() }));
      ok(await t.app.inject({ method: 'GET', url: `/${version}/currencies?id=${USDC_BASE_ID}` }));
      ok(
        await t.app.inject({
          method: 'GET',
          url: `/${version}/currencies/${USDC_BASE_ID}/conversion-routes`,
          headers: headers(),
        }),
      );
    }
  });

  it('answers the client-ID operations', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/client-ids',
      headers: headers(),
      payload: { label: 'Shop', allowedDomains: ['https://shop.example'] },
    });
    ok(created, 201);
    const id = created.json().id as string;
    ok(await t.app.inject({ method: 'GET', url: '/v2/client-ids', headers: headers() }));
    ok(await t.app.inject({ method: 'GET', url: `/v2/client-ids/${id}`, headers: headers() }));
    ok(
      await t.app.inject({
        method: 'PUT',
        url: `/v2/client-ids/${id}`,
        headers: headers(),
        payload: { label: 'Shop, renamed' },
      }),
    );
    ok(await t.app.inject({ method: 'DELETE', url: `/v2/client-ids/${id}`, headers: headers() }));
  });

  it('answers the payee-destination operations, with a signature made by the wallet', async () => {
    const wallet = privateKeyToAccount(PAYEE_KEY);
    const signingData = async (action: 'add' | 'deactivate') => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v2/payee-destination/signing-data?walletAddress=${wallet.address}&action=${action}&tokenAddress=${local.chain.addresses.usdc}&chainId=8453`,
        headers: headers(),
      });
      ok(res);
      const { typedData, nonce } = res.json();
      const signature = await wallet.signTypedData({
        ...typedData,
        message: {
          ...typedData.message,
          chainId: BigInt(typedData.message.chainId),
          expiresAt: BigInt(typedData.message.expiresAt),
        },
      });
      return { signature, nonce };
    };
    const added = await t.app.inject({
      method: 'POST',
      url: '/v2/payee-destination',
      headers: headers(),
      payload: await signingData('add'),
    });
    ok(added, 201);
    const destinationId = added.json().destinationId as string;
    ok(
      await t.app.inject({
        method: 'GET',
        url: `/v2/payee-destination?walletAddress=${wallet.address}`,
        headers: headers(),
      }),
    );
    const path = `/v2/payee-destination/${encodeURIComponent(destinationId)}`;
    ok(await t.app.inject({ method: 'GET', url: path, headers: headers() }));
    ok(
      await t.app.inject({
        method: 'DELETE',
        url: path,
        headers: headers(),
        payload: await signingData('deactivate'),
      }),
    );
  });

  it('answers the request, link, calldata and payment operations before and after a payment', async () => {
    const payee = accountOf(local.chain, 1).address;
    const payer = accountOf(local.chain, 2);
    const request = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: {
        amount: '3',
        invoiceCurrency: USDC_BASE_ID,
        paymentCurrency: USDC_BASE_ID,
        payee,
        isCryptoToFiatAvailable: false,
        customerInfo: { firstName: 'Ada', address: { country: 'GB' } },
      },
    });
    ok(request, 201);
    const requestId = request.json().requestId as string;
    ok(await t.app.inject({ method: 'GET', url: `/v2/request/${requestId}`, headers: headers() }));
    const requestPay = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestId}/pay?wallet=${payer.address}`,
      headers: headers(),
    });
    ok(requestPay);
    ok(
      await t.app.inject({
        method: 'GET',
        url: `/v2/request/${requestId}/routes?wallet=${payer.address}&feePercentage=1&feeAddress=${payee}`,
        headers: headers(),
      }),
    );
    ok(
      await t.app.inject({
        method: 'POST',
        url: '/v2/payouts',
        headers: headers(),
        payload: {
          payee,
          amount: '2',
          invoiceCurrency: USDC_BASE_ID,
          paymentCurrency: USDC_BASE_ID,
          payerWallet: payer.address,
        },
      }),
      201,
    );
    ok(
      await t.app.inject({
        method: 'POST',
        url: '/v2/payouts/batch',
        headers: headers(),
        payload: { requestIds: [requestId], payer: payer.address },
      }),
      201,
    );

    // The link pays a destination registered the operator's way (the CLI's).
    const target = resolveTarget(t.chains, {
      walletAddress: payee,
      chainId: 8453,
      tokenAddress: local.chain.addresses.usdc,
    });
    const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
    const link = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: headers(),
      payload: { requests: [{ destinationId, amount: '2' }], reference: 'order-1' },
    });
    ok(link, 201);
    const { token, requestIds } = link.json() as { token: string; requestIds: string[] };
    ok(
      await t.app.inject({
        method: 'GET',
        url: `/v2/secure-payments/${token}`,
        headers: headers(),
      }),
    );
    // With the payer's wallet the display carries paymentOptions, held to the schemas too.
    const display = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}?wallet=${payer.address}`,
      headers: headers(),
    });
    ok(display);
    expect(display.json().paymentOptions.BASE.USDC).toMatchObject({ neededAmount: '2' });
    const calldata = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}/pay?wallet=${payer.address}`,
      headers: headers(),
    });
    ok(calldata);
    // A link only other wallets may pay: made with the reference's whole accessPolicy, and its
    // calldata refused to this payer with the reference's 403 (src/screening/).
    const restricted = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: headers(),
      payload: {
        requests: [{ destinationId, amount: '2' }],
        accessPolicy: {
          mode: 'off',
          screeningProvider: null,
          hideUntilApproved: false,
          hidePayeeAddress: false,
          allowedPayerAddresses: [payee],
        },
      },
    });
    ok(restricted, 201);
    const refused = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${restricted.json().token}/pay?wallet=${payer.address}`,
      headers: headers(),
    });
    ok(refused, 403);
    expect(refused.json().code).toBe('payer_not_allowed');
    ok(
      await t.app.inject({
        method: 'GET',
        url: `/v2/secure-payments?requestId=${requestIds[0]}`,
        headers: headers(),
      }),
    );

    // From Arbitrum: a cross-chain route (variant A with its metadata), and its step refreshed.
    const bridged = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}/pay?wallet=${payer.address}&chain=ARBITRUM&token=USDT`,
      headers: headers(),
    });
    ok(bridged);
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/v2/secure-payments/${token}/refresh-step-transaction`,
        headers: headers(),
        payload: { step: bridged.json().metadata.rawStep },
      }),
    );

    await sendAll(local.chain, payer, calldata.json().transactions);
    await local.chain.provider.request({ method: 'evm_mine' });
    expect((await indexer.tick()).recorded).toBe(1);

    // Paid: the status record, the lookup and the search carry the payment.
    const paid = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestIds[0]}`,
      headers: headers(),
    });
    ok(paid);
    // 0.31.0's fields: the request as written, and the payment typed: 2 USDC sent and
    // received on Base in one transaction, nothing beyond what was owed.
    expect(paid.json()).toMatchObject({
      payee,
      requestAmount: '2',
      invoiceCurrency: USDC_BASE_ID,
      paymentCurrency: USDC_BASE_ID,
    });
    expect(paid.json().payments).toEqual([
      expect.objectContaining({
        amount: '2',
        sourceNetwork: 'base',
        destinationNetwork: 'base',
        sourceTxHash: paid.json().txHash,
        destinationTxHash: null,
        paidAmount: '2',
        paidCurrency: 'USDC',
        paidNetwork: 'base',
        receivedAmount: '2',
        receivedCurrency: 'USDC',
        receivedNetwork: 'base',
        excessAmount: null,
        excessCurrency: null,
        currency: 'USDC',
        paymentCurrency: USDC_BASE_ID,
        detectionSource: 'request-network',
        note: null,
      }),
    ]);
    expect(paid.json().txHash).toMatch(/^0x[0-9a-f]{64}$/);
    ok(
      await t.app.inject({
        method: 'GET',
        url: `/v2/secure-payments?requestId=${requestIds[0]}`,
        headers: headers(),
      }),
    );
    const search = await t.app.inject({
      method: 'GET',
      url: `/v2/payments?requestId=${requestIds[0]}`,
      headers: headers(),
    });
    ok(search);
    expect(search.json().payments).toHaveLength(1);
    // The reference documents these error bodies of the search too.
    ok(await t.app.inject({ method: 'GET', url: '/v2/payments', headers: headers() }), 400);
    ok(await t.app.inject({ method: 'GET', url: '/v2/payments?requestId=x' }), 401);
  });

  it('answers the recurring-request operations: the original, an occurrence, and PATCH', async () => {
    const body = {
      amount: '9',
      invoiceCurrency: USDC_BASE_ID,
      paymentCurrency: USDC_BASE_ID,
      payee: accountOf(local.chain, 1).address,
    };
    const original = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: { ...body, recurrence: { startDate: '2026-12-01T00:00:00Z', frequency: 'WEEKLY' } },
    });
    ok(original, 201);
    const { requestId, paymentReference } = original.json();
    const occurrence = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: {
        ...body,
        originalRequestId: requestId,
        originalRequestPaymentReference: paymentReference,
      },
    });
    ok(occurrence, 201);
    // The status records carry the recurrence fields in the reference's types.
    const shown = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestId}`,
      headers: headers(),
    });
    ok(shown);
    expect(shown.json().recurrence).toEqual({
      startDate: '2026-12-01T00:00:00.000Z',
      frequency: 'WEEKLY',
    });
    const occurrenceShown = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${occurrence.json().requestId}`,
      headers: headers(),
    });
    ok(occurrenceShown);
    expect(occurrenceShown.json().originalRequestId).toBe(requestId);
    const stopped = await t.app.inject({
      method: 'PATCH',
      url: `/v2/request/${requestId}`,
      headers: headers(),
      payload: { isRecurrenceStopped: true },
    });
    ok(stopped);
    expect(stopped.json().isRecurrenceStopped).toBe(true);
    ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/v2/request/${requestId}`,
        headers: headers(),
        payload: { isRecurrenceStopped: false },
      }),
    );
    // The reference documents PATCH's 404 too.
    ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/v2/request/01${'0'.repeat(64)}`,
        headers: headers(),
        payload: { isRecurrenceStopped: true },
      }),
      404,
    );
  });

  it('relays a Tron link’s signed approval to the Tron node', async () => {
    const payer = accountOf(local.chain, TRON_PAYER) as LocalAccount;
    const target = resolveTarget(t.chains, {
      walletAddress: evmToTron(accountOf(local.chain, 1).address),
      chainId: TRON_CHAIN_ID,
      tokenAddress: TRON_USDT,
    });
    const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
    const link = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: headers(),
      payload: { requests: [{ destinationId, amount: '4' }] },
    });
    ok(link, 201);
    const token = link.json().token as string;
    const calldata = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}/pay?wallet=${evmToTron(payer.address)}`,
      headers: headers(),
    });
    ok(calldata);
    expect(calldata.json()).toMatchObject({ paymentType: 'single', flow: 'incoming' });
    expect(calldata.json().transactions.map((tx: { chainType: string }) => tx.chainType)).toEqual([
      'tron',
      'tron',
    ]);
    const [approve] = calldata.json().transactions as TronTransaction[];
    const relayed = await t.app.inject({
      method: 'POST',
      url: `/v2/secure-payments/${token}/tron/broadcast`,
      headers: headers(),
      payload: {
        signedTransaction: await signTronCall(tron.url, approve as TronTransaction, payer),
      },
    });
    ok(relayed);
    expect(relayed.json().result).toBe(true);

    // A request on Tron: its /pay names each call's chain type too.
    const request = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: {
        amount: '1',
        invoiceCurrency: 'USDT-tron',
        paymentCurrency: 'USDT-tron',
        payee: evmToTron(accountOf(local.chain, 1).address),
      },
    });
    ok(request, 201);
    const requestPay = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${request.json().requestId}/pay`,
      headers: headers(),
    });
    ok(requestPay);
    expect(requestPay.json().transactions.map((tx: { chainType: string }) => tx.chainType)).toEqual(
      ['tron', 'tron'],
    );
  });

  it('answers the intent operations: a payer’s transaction, a Safe’s, and the 423 it puts on the link', async () => {
    const target = resolveTarget(t.chains, {
      walletAddress: accountOf(local.chain, 1).address,
      chainId: 8453,
      tokenAddress: local.chain.addresses.usdc,
    });
    const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
    const tokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const link = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments',
        headers: headers(),
        payload: { requests: [{ destinationId, amount: '1' }] },
      });
      ok(link, 201);
      tokens.push(link.json().token);
    }
    const [sent, safe] = tokens;
    const intent = (token: string | undefined, body: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: `/v2/secure-payments/${token}/intent`,
        headers: headers(),
        payload: { chain: 'BASE', token: 'USDC', ...body },
      });
    ok(await intent(sent, { txHash: `0x${'12'.repeat(32)}` }));
    ok(await intent(safe, { safeTxHash: `0x${'34'.repeat(32)}` }));
    const locked = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${safe}`,
      headers: headers(),
    });
    expect(locked.statusCode, locked.body).toBe(423);
  });

  it('answers the payout-link operations: a payout link, its display, and a batch of two', async () => {
    const creator = accountOf(local.chain, 2).address;
    const tokens: string[] = [];
    for (const amount of ['1', '2.5']) {
      const payout = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments/payouts',
        headers: headers(),
        payload: {
          recipient: accountOf(local.chain, 3).address,
          creatorWalletAddress: creator,
          network: 'base',
          currency: USDC_BASE_ID,
          amount,
          recipientIdentifier: 'supplier-1',
        },
      });
      ok(payout, 201);
      tokens.push(payout.json().token);
    }
    ok(
      await t.app.inject({
        method: 'GET',
        url: `/v2/secure-payments/${tokens[0]}`,
        headers: headers(),
      }),
    );
    const batch = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/batch-payouts',
      headers: headers(),
      payload: { tokens },
    });
    ok(batch, 201);
    ok(
      await t.app.inject({
        method: 'GET',
        url: `/v2/secure-payments/${batch.json().token}`,
        headers: headers(),
      }),
    );
  });

  it('answers the multicall operations: creation, its view, the page view and Variant C', async () => {
    const creator = accountOf(local.chain, 2).address;
    const children: string[] = [];
    for (const amount of ['1', '2.5']) {
      const payout = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments/payouts',
        headers: headers(),
        payload: {
          recipient: accountOf(local.chain, 3).address,
          creatorWalletAddress: creator,
          network: 'base',
          currency: USDC_BASE_ID,
          amount,
        },
      });
      ok(payout, 201);
      children.push(payout.json().token);
    }
    const multicall = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/multicall-payouts',
      headers: headers(),
      payload: { childTokens: children, requestedExecutionKind: 'evm_same_chain' },
    });
    ok(multicall, 201);
    const token = multicall.json().token as string;
    for (const url of [
      `/v2/secure-payments/multicall-payouts/${token}`,
      `/v2/secure-payments/${token}`,
      `/v2/secure-payments/${token}/pay?wallet=${creator}`,
    ]) {
      ok(await t.app.inject({ method: 'GET', url, headers: headers() }));
    }
    // A smart account's receipt of the bundle, in 0.31.0's form and in 0.13.0's (to /intent).
    const receipt = {
      chain: 'BASE',
      smartAccountAddress: creator,
      userOpHash: `0x${'ab'.repeat(32)}`,
      transactionIndices: [{ childPosition: 0, transactionIndex: 1 }],
    };
    for (const path of ['multicall-intent', 'intent']) {
      ok(
        await t.app.inject({
          method: 'POST',
          url: `/v2/secure-payments/${token}/${path}`,
          headers: headers(),
          payload: receipt,
        }),
      );
    }
    // evm_cross_chain: the children paid from Arbitrum, each routed (Variant C with its routes).
    const routedChildren: string[] = [];
    for (const amount of ['1.5', '3']) {
      const payout = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments/payouts',
        headers: headers(),
        payload: {
          recipient: accountOf(local.chain, 3).address,
          creatorWalletAddress: creator,
          network: 'base',
          currency: USDC_BASE_ID,
          amount,
        },
      });
      ok(payout, 201);
      routedChildren.push(payout.json().token);
    }
    const crossChainParent = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/multicall-payouts',
      headers: headers(),
      payload: { childTokens: routedChildren, requestedExecutionKind: 'evm_cross_chain' },
    });
    ok(crossChainParent, 201);
    const routed = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${crossChainParent.json().token}/pay?wallet=${creator}&chain=ARBITRUM&token=USDT`,
      headers: headers(),
    });
    ok(routed);
    expect(routed.json()).toMatchObject({
      executionKind: 'evm_cross_chain',
      metadata: { bridgeTxIndices: [1, 2] },
    });
    expect(routed.json().destinationCalls).toHaveLength(2);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/multicall-payouts',
      headers: headers(),
      payload: { childTokens: children },
    });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().failures).toHaveLength(2);
  });

  it('answers the recurring payout operations: creation, the signed permit, the status and a cancellation', async () => {
    const payer = accountOf(local.chain, 2) as LocalAccount;
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/payouts',
      headers: headers(),
      payload: {
        payee: accountOf(local.chain, 1).address,
        amount: '3',
        invoiceCurrency: USDC_BASE_ID,
        paymentCurrency: USDC_BASE_ID,
        recurrence: {
          startDate: new Date(t.clock.now().getTime() + 86_400_000).toISOString(),
          frequency: 'WEEKLY',
          totalPayments: 4,
          payer: payer.address,
        },
      },
    });
    ok(created, 201);
    const { id, recurringPaymentPermit: permit } = created.json();
    const values = permit.values;
    const signature = await payer.signTypedData({
      domain: permit.domain,
      types: permit.types,
      primaryType: 'SchedulePermit',
      message: {
        ...values,
        amount: BigInt(values.amount),
        feeAmount: BigInt(values.feeAmount),
        relayerFee: BigInt(values.relayerFee),
        nonce: BigInt(values.nonce),
        deadline: BigInt(values.deadline),
      },
    });
    const url = `/v2/payouts/recurring/${id}`;
    ok(
      await t.app.inject({
        method: 'POST',
        url,
        headers: headers(),
        payload: { permitSignature: signature },
      }),
      201,
    );
    ok(await t.app.inject({ method: 'GET', url, headers: headers() }));
    ok(
      await t.app.inject({
        method: 'PATCH',
        url,
        headers: headers(),
        payload: { action: 'cancel' },
      }),
    );
  });

  it('answers the v1 request operations: by payment reference, paid on chain, and /v1/pay', async () => {
    const payee = accountOf(local.chain, 1).address;
    const payer = accountOf(local.chain, 2);
    const body = {
      payee,
      amount: '2',
      invoiceCurrency: USDC_BASE_ID,
      paymentCurrency: USDC_BASE_ID,
    };
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/request',
      headers: headers(),
      payload: body,
    });
    ok(created, 201);
    const ref = created.json().paymentReference as string;
    const v1 = (method: 'GET' | 'PATCH', path: string) =>
      t.app.inject({ method, url: `/v1/request/${ref}${path}`, headers: headers() });
    ok(await v1('GET', ''));
    ok(await v1('GET', `/routes?wallet=${payer.address}`));
    const pay = await v1('GET', `/pay?wallet=${payer.address}`);
    ok(pay);
    await sendAll(
      local.chain,
      payer,
      pay
        .json()
        .transactions.map(
          (tx: { to: `0x${string}`; data: `0x${string}`; value: { hex: `0x${string}` } }) => ({
            to: tx.to,
            data: tx.data,
            value: tx.value.hex,
            chainId: local.chain.chainId,
          }),
        ),
    );
    await local.chain.provider.request({ method: 'evm_mine' });
    expect((await indexer.tick()).recorded).toBe(1);
    const paid = await v1('GET', '');
    ok(paid);
    expect(paid.json().payments).toHaveLength(1);

    const recurring = await t.app.inject({
      method: 'POST',
      url: '/v1/request',
      headers: headers(),
      payload: { ...body, recurrence: { startDate: '2026-12-01', frequency: 'MONTHLY' } },
    });
    ok(recurring, 201);
    ok(
      await t.app.inject({
        method: 'PATCH',
        url: `/v1/request/${recurring.json().paymentReference}/stop-recurrence`,
        headers: headers(),
      }),
    );
    ok(
      await t.app.inject({ method: 'POST', url: '/v1/pay', headers: headers(), payload: body }),
      201,
    );
  });

  it('answers the operations new in 0.31.0: health, history, export, funnel events, orchestrator creation', async () => {
    ok(await t.app.inject({ method: 'GET', url: '/v2/health' }));
    ok(await t.app.inject({ method: 'GET', url: '/v1/health' }));
    const user = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: 'exporter@example.com', password: 'a long enough password' },
    });
    ok(user, 201);
    const session = { authorization: `Bearer ${user.json().sessionToken}` };
    const exported = await t.app.inject({
      method: 'GET',
      url: '/v2/dashboard/requests/export?flow=incoming',
      headers: session,
    });
    ok(exported);
    expect(exported.headers['content-type']).toBe('text/csv; charset=utf-8');
    ok(
      await t.app.inject({
        method: 'POST',
        url: '/v2/orchestrators',
        headers: session,
        payload: { orchestratorName: 'Conformance', orchestratorContactEmail: 'ops@example.com' },
      }),
      201,
    );
    // A link made with the client ID, paid: the wallet's history has an item of each side.
    const clientId = { 'x-client-id': tenant.backendClientId };
    const payee = accountOf(local.chain, 1).address;
    const payer = accountOf(local.chain, 2);
    const target = resolveTarget(t.chains, {
      walletAddress: payee,
      chainId: 8453,
      tokenAddress: local.chain.addresses.usdc,
    });
    const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
    const link = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: clientId,
      payload: { requests: [{ destinationId, amount: '1' }] },
    });
    ok(link, 201);
    const token = link.json().token as string;
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/v2/secure-payments/${token}/events`,
        headers: clientId,
        payload: {
          userEvent: 'wallet_connected',
          occurredAt: t.clock.now().toISOString(),
          properties: { wallet_provider: 'MetaMask', payment_type: 'single' },
        },
      }),
      202,
    );
    const calldata = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}/pay?wallet=${payer.address}`,
      headers: clientId,
    });
    ok(calldata);
    await sendAll(local.chain, payer, calldata.json().transactions);
    await local.chain.provider.request({ method: 'evm_mine' });
    expect((await indexer.tick()).recorded).toBe(1);
    for (const [wallet, type] of [
      [payer.address, 'outgoing'],
      [payee, 'incoming'],
    ]) {
      const history = await t.app.inject({
        method: 'GET',
        url: `/v2/transaction-history?address=${wallet}&limit=10&offset=0`,
        headers: clientId,
      });
      ok(history);
      expect(history.json()).toMatchObject([{ type, amountReceived: '1' }]);
    }
  });

  it('answers the Auth API operations, the request list and the orchestrator links', async () => {
    await answerAuthOperations(t, tenant, {
      tokenAddress: local.chain.addresses.usdc,
      chainId: 8453,
    });
  });

  it('answers the branding operations of an orchestrator', async () => {
    const platform = await createOrchestrator(t.db, 'Branded platform');
    const key = { 'x-orchestrator-key': platform.orchestratorKey };
    const { clientId } = await createClientId(t.db, {
      accountId: tenant.accountId,
      label: 'Branded',
      allowedDomains: [],
    });
    await linkClientId(t.db, platform.orchestratorId, clientId);
    const url = '/v2/orchestrators/branding';
    const body = {
      logoPath: '/branding/logo.png',
      pageBackgroundColor: '#f3f4f6',
      primaryActionColor: '#00d395',
      clientId,
    };
    ok(await t.app.inject({ method: 'POST', url, headers: key, payload: body }), 201);
    const query = `${url}?clientId=${clientId}`;
    ok(await t.app.inject({ method: 'GET', url: query, headers: key }));
    const patch = { clientId, primaryActionColor: '#0a7' };
    ok(await t.app.inject({ method: 'PATCH', url, headers: key, payload: patch }));
    const removed = await t.app.inject({ method: 'DELETE', url: query, headers: key });
    ok(removed);
    expect(removed.json()).toEqual({ removed: true });
  });

  it('answers the orchestrator webhook operations', async () => {
    const receiver = await startReceiver();
    try {
      const { orchestratorKey } = await createOrchestrator(t.db, 'Conformance hooks');
      const key = { 'x-orchestrator-key': orchestratorKey };
      const created = await t.app.inject({
        method: 'POST',
        url: '/v2/orchestrators/webhooks',
        headers: key,
        payload: { url: receiver.url },
      });
      ok(created, 201);
      const hook = `/v2/orchestrators/webhooks/${created.json().webhook.id}`;
      ok(await t.app.inject({ method: 'GET', url: '/v2/orchestrators/webhooks', headers: key }));
      const tested = await t.app.inject({
        method: 'POST',
        url: '/v2/orchestrators/webhooks/test',
        headers: key,
        payload: { eventType: 'client_id.linked' },
      });
      ok(tested);
      expect(tested.json()).toEqual({ sent: 1, failed: 0 });
      ok(await t.app.inject({ method: 'DELETE', url: hook, headers: key }));
      ok(await t.app.inject({ method: 'PATCH', url: hook, headers: key }));
    } finally {
      await receiver.close();
    }
  });

  it('answers the fee preview and a link’s captured plan with an orchestrator’s fees (paired auth)', async () => {
    const platform = await createOrchestrator(t.db, 'Fee platform');
    const target = resolveTarget(t.chains, {
      walletAddress: privateKeyToAccount(PAYEE_KEY).address,
      chainId: 8453,
      tokenAddress: local.chain.addresses.usdc,
    });
    const bound = await activateDestination(t.db, t.clock, tenant.accountId, target);
    const { clientId } = await createClientId(t.db, {
      accountId: tenant.accountId,
      label: 'Charged',
      allowedDomains: [],
      payeeDestinationId: bound.destinationId,
    });
    await linkClientId(t.db, platform.orchestratorId, clientId);
    const key = { 'x-orchestrator-key': platform.orchestratorKey };
    const config = {
      flow: 'incoming',
      feeBearer: 'payer',
      bps: 50,
      usdCap: '0.40',
      evmRecipientAddress: '0x2546BcD3c84621e976D8185a91A922aE77ECEc30',
    };
    ok(
      await t.app.inject({
        method: 'POST',
        url: '/v2/orchestrators/fee-configs',
        headers: key,
        payload: config,
      }),
      201,
    );
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/fees/preview',
      headers: { ...key, 'x-client-id': clientId },
      payload: { amount: '100', currency: USDC_BASE_ID, flow: 'get_paid' },
    });
    ok(res);
    expect(res.json()).toMatchObject({ payerTotalAmountUsd: '100.4', fees: [{ capUsd: '0.4' }] });
    const link = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: { ...key, 'x-client-id': clientId },
      payload: { requests: [{ amount: '100' }] },
    });
    ok(link, 201);
    expect(link.json().feePlan).toEqual(res.json());
    const shown = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${link.json().token}`,
      headers: headers(),
    });
    ok(shown);
    expect(shown.json().feePlan).toEqual(res.json());
  });

  it('answers the link-intent operations', async () => {
    const { orchestratorKey } = await createOrchestrator(t.db, 'Conformance intents');
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/orchestrators/client-id-link-intents',
      headers: { 'x-orchestrator-key': orchestratorKey },
      payload: { clientIdName: 'Invited', domains: ['https://invited.example'], externalId: 'x1' },
    });
    ok(created, 201);
    const user = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: 'invited@example.com', password: 'a long enough password' },
    });
    ok(user, 201);
    const session = { authorization: `Bearer ${user.json().sessionToken}` };
    const target = resolveTarget(t.chains, {
      walletAddress: accountOf(local.chain, 3).address,
      chainId: 8453,
      tokenAddress: local.chain.addresses.usdc,
    });
    await activateDestination(t.db, t.clock, user.json().accountId, target);
    const url = `/v1/client-id-links/intents/${created.json().intent.accessToken}`;
    ok(await t.app.inject({ method: 'GET', url, headers: session }));
    const completed = await t.app.inject({ method: 'POST', url, headers: session });
    ok(completed, 201);
    ok(
      await t.app.inject({
        method: 'PUT',
        url: `/v1/client-id-links/${completed.json().clientId.id}/kyt`,
        headers: session,
        payload: { providers: [{ provider: 'hypernative' }] },
      }),
    );
  });

  it('answers the journey operations with the fields of the reference’s examples', async () => {
    const request = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: {
        amount: '4',
        invoiceCurrency: USDC_BASE_ID,
        paymentCurrency: USDC_BASE_ID,
        payee: accountOf(local.chain, 1).address,
      },
    });
    ok(request, 201);
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/journey',
      headers: headers(),
      payload: { requestId: request.json().requestId },
    });
    ok(created, 201);
    const journeyId = created.json().journeyId as string;
    expect(Object.keys(created.json())).toEqual(['journeyId']);
    const step = await t.app.inject({
      method: 'POST',
      url: `/v2/journey/${journeyId}`,
      headers: headers(),
      payload: {
        status: 'completed',
        amount: '4.00',
        currency: 'EUR',
        txReference: 'SEPA-0042',
        processedAt: '2026-11-22T12:30:00Z',
        rawPayload: { exchange: 'Bitstamp', network: 'sepa', fee: '0.02', note: 'paid out' },
        nextProcessorId: 'bank',
      },
    });
    ok(step, 201);
    // The example's members (0.31.0 gives the answers no schema, only examples).
    expect(Object.keys(step.json())).toEqual(
      expect.arrayContaining([
        'id',
        'journeyId',
        'processorId',
        'status',
        'amount',
        'currency',
        'txReference',
        'processedAt',
        'rawPayload',
      ]),
    );
    const read = await t.app.inject({
      method: 'GET',
      url: `/v2/journey/${journeyId}`,
      headers: headers(),
    });
    ok(read);
    expect(read.json()).toMatchObject({
      id: journeyId,
      requestId: request.json().requestId,
      createdAt: expect.any(String),
    });
    for (const event of read.json().events) {
      expect(Object.keys(event)).toEqual(
        expect.arrayContaining([
          'id',
          'stepIndex',
          'status',
          'amount',
          'currency',
          'processedAt',
          'txReference',
          'rawPayload',
        ]),
      );
    }
  });

  it('answers the commerce operations: calldata, authorize, status, capture and void', async () => {
    const commerce = (path: string, payload: object) =>
      t.app.inject({
        method: 'POST',
        url: `/v2/commerce-payments/${path}`,
        headers: headers(),
        payload,
      });
    // Long expiries: the chain keeps the machine's time, the test clock an earlier one.
    const created = await commerce('authorize/calldata', {
      merchantId: 'shop-7',
      merchantAddress: accountOf(local.chain, 2).address,
      buyerAddress: accountOf(local.chain, COMMERCE_BUYER).address,
      amount: '20',
      paymentCurrency: USDC_BASE_ID,
      preApprovalExpiry: 30 * 86_400,
      authorizationExpiry: 60 * 86_400,
    });
    ok(created, 201);
    const { requestId, transactions } = created.json();
    // The buyer approves the wrapper and pre-approves the terms; the operator authorizes.
    await sendAll(
      local.chain,
      accountOf(local.chain, COMMERCE_BUYER),
      transactions.map((tx: { to: Hex; data: Hex; value: { hex: Hex } }) => ({
        to: tx.to,
        data: tx.data,
        value: tx.value.hex,
        chainId: local.chain.chainId,
      })),
    );
    ok(
      await t.app.inject({
        method: 'GET',
        url: `/v2/commerce-payments/${requestId}/status`,
        headers: headers(),
      }),
    );
    ok(await commerce(`${requestId}/authorize`, {}));
    ok(await commerce(`${requestId}/capture/calldata`, { captureAmount: '5' }));
    ok(await commerce(`${requestId}/capture`, { captureAmount: '5' }));
    ok(await commerce(`${requestId}/void/calldata`, {}));
    const voided = await commerce(`${requestId}/void`, { reason: 'out of stock' });
    ok(voided);
    expect(voided.json()).toMatchObject({ status: 'PAID', voidedAmount: '15' });
  });

  it('answers the payer operations, v2 and v1, and the payer 404', async () => {
    for (const version of ['v2', 'v1']) {
      const base = `/${version}/payer`;
      const user = `conformance-${version}`;
      const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
        t.app.inject({ method, url, headers: headers(), ...(payload && { payload }) });
      ok(await call('POST', base, kycBody(user, '3131')));
      ok(await call('GET', `${base}/${user}`));
      ok(await call('PATCH', `${base}/${user}`, { agreementCompleted: true }));
      const added = await call('POST', `${base}/${user}/payment-details`, bankBody('3131'));
      ok(added, 201);
      const id = added.json().payment_detail.id as string;
      ok(await call('GET', `${base}/${user}/payment-details`));
      ok(await call('GET', `${base}/${user}/payment-details?paymentDetailsId=${id}`));
      const missing = await call('GET', `${base}/nobody`);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({
        statusCode: 404,
        message: 'Payer with client user ID nobody not found',
        error: 'Not Found',
      });
    }
  });

  it('answers crypto-to-fiat: a request with no payee, its /pay to the deposit address, and each refusal', async () => {
    const USDC_ARBITRUM = 'USDC-arbitrum-one';
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: {
        amount: '4',
        invoiceCurrency: USDC_ARBITRUM,
        paymentCurrency: USDC_ARBITRUM,
        isCryptoToFiatAvailable: true,
      },
    });
    ok(created, 201);
    const requestId = created.json().requestId as string;
    const status = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestId}`,
      headers: headers(),
    });
    ok(status);
    expect(status.json()).toMatchObject({
      isCryptoToFiatAvailable: true,
      payee: '0x0000000000000000000000000000000000000000',
      status: 'pending',
      hasBeenPaid: false,
      offrampStatus: null,
    });
    const pay = (query: Record<string, string>, id = requestId) =>
      t.app.inject({
        method: 'GET',
        url: `/v2/request/${id}/pay?${new URLSearchParams(query)}`,
        headers: headers(),
      });
    const db = { t };
    const mine = await insertPayer(db, tenant.accountId, 'c2f-compliant');
    const kyc = await insertPayer(db, tenant.accountId, 'c2f-kyc-pending', { kyc: 'pending' });
    const details = await insertPayer(db, tenant.accountId, 'c2f-details-pending', {
      details: 'pending',
    });
    // The reference's calldata answer: the approval and the payment, to the deposit address.
    const paid = await pay({
      clientUserId: 'c2f-compliant',
      paymentDetailsId: mine.paymentDetailsId,
    });
    ok(paid);
    const [transfer] = [...offramp.transfers.values()].filter(
      (tr) => tr.clientReferenceId === requestId,
    );
    expect(transfer).toMatchObject({ rail: 'arbitrum', currency: 'usdc', amount: '4' });
    expect(paid.json()).toMatchObject({
      transactions: expect.any(Array),
      metadata: expect.any(Object),
    });
    expect(paid.json().transactions.at(-1).data.toLowerCase()).toContain(
      transfer?.depositAddress.slice(2).toLowerCase(),
    );
    const before = await transferCount(db);
    const plain = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: {
        amount: '4',
        invoiceCurrency: USDC_ARBITRUM,
        paymentCurrency: USDC_ARBITRUM,
        payee: accountOf(local.chain, 1).address,
      },
    });
    ok(plain, 201);
    const refusals: [Record<string, string>, string | undefined, number, string, string][] = [
      [
        { clientUserId: 'c2f-kyc-pending', paymentDetailsId: kyc.paymentDetailsId },
        undefined,
        400,
        'payer_not_compliant',
        'Payer c2f-kyc-pending is not compliant: its KYC must be approved and its agreement completed',
      ],
      [
        { clientUserId: 'c2f-details-pending', paymentDetailsId: details.paymentDetailsId },
        undefined,
        400,
        'payment_details_not_usable',
        `Payment details ${details.paymentDetailsId} are not approved yet`,
      ],
      [
        { clientUserId: 'c2f-compliant', paymentDetailsId: kyc.paymentDetailsId },
        undefined,
        400,
        'payment_details_not_usable',
        `Payment details ${kyc.paymentDetailsId} are not this payer's`,
      ],
      [
        { clientUserId: 'c2f-compliant', paymentDetailsId: mine.paymentDetailsId },
        plain.json().requestId,
        400,
        'crypto_to_fiat_not_allowed',
        'This request does not allow crypto-to-fiat payments: create it with isCryptoToFiatAvailable: true',
      ],
      [
        { clientUserId: 'c2f-nobody', paymentDetailsId: mine.paymentDetailsId },
        undefined,
        404,
        'payer_not_found',
        'Payer with client user ID c2f-nobody not found',
      ],
      [
        { clientUserId: 'c2f-compliant', paymentDetailsId: 'not-a-uuid' },
        undefined,
        400,
        'validation_failed',
        'Validation failed',
      ],
      [{ clientUserId: 'c2f-compliant' }, undefined, 400, 'validation_failed', 'Validation failed'],
      [
        { paymentDetailsId: mine.paymentDetailsId },
        undefined,
        400,
        'validation_failed',
        'Validation failed',
      ],
    ];
    for (const [query, id, statusCode, code, message] of refusals) {
      const res = await pay(query, id);
      const name = `${JSON.stringify(query)}: ${res.body}`;
      expect(res.statusCode, name).toBe(statusCode);
      expect(res.json(), name).toMatchObject({
        statusCode,
        code,
        message,
        error: statusCode === 404 ? 'Not Found' : 'Bad Request',
      });
      if (code === 'validation_failed') {
        expect(res.json().errors, name).toEqual([
          expect.objectContaining({ field: expect.any(String), message: expect.any(String) }),
        ]);
      }
    }
    // Refused before the provider is asked: no transfer made.
    expect(await transferCount(db)).toBe(before);
  });

  it('has a conforming success answer for every reference operation we serve', () => {
    const served = new Set(t.routes.map((route) => `${route.method} ${pathShape(route.url)}`));
    const answers = capturedAnswers();
    const missing: string[] = [];
    for (const operation of referenceOperations()) {
      if (!served.has(`${operation.method} ${operation.shape}`)) continue;
      if (NEVER_SUCCEEDS[operation.name] !== undefined) continue;
      const successes = operation.statuses.filter((status) => status < 300);
      // An operation that documents no success (`PUT /v1/client-id-links/{clientIdId}/kyt`
      // lists only 401 and 429) is met by any 2xx.
      const isSuccess = (status: number) =>
        successes.length === 0 ? status >= 200 && status < 300 : successes.includes(status);
      const conforming = answers.some(
        (answer) =>
          answer.operation === operation.name && isSuccess(answer.status) && answer.valid !== false,
      );
      if (!conforming) missing.push(operation.name);
    }
    expect(missing).toEqual(Object.keys(KNOWN_GAPS));
    // Invalid answers fail the test that got them (test/setup.ts); none may be counted here.
    expect(answers.filter((answer) => answer.valid === false)).toEqual([]);
    // And the schemas were really used: most answers here had one to meet.
    expect(answers.filter((answer) => answer.valid === true).length).toBeGreaterThan(10);
  });
});
