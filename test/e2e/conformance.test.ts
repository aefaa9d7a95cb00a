import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeCompliance } from '../../src/sandbox/compliance/fake-compliance.ts';
import { startFakeOfframp } from '../../src/sandbox/offramp/fake-offramp.ts';
import { createTestApp } from '../app.ts';
import { standIn } from '../chain.ts';
import { capturedAnswers, referenceOperations } from '../conformance.ts';
import {
  authOperations,
  brandingOperations,
  clientIdOperations,
  currencyOperations,
  feePreviewOperations,
  orchestratorWebhookOperations,
  payeeDestinationOperations,
  payerOperations,
} from '../conformance-flows/accounts.ts';
import {
  commerceOperations,
  cryptoToFiatOperations,
  journeyOperations,
} from '../conformance-flows/commerce.ts';
import {
  intentOperations,
  linkIntentOperations,
  requestAndLinkOperations,
} from '../conformance-flows/links.ts';
import {
  multicallOperations,
  payoutLinkOperations,
  recurringPayoutOperations,
  recurringRequestOperations,
} from '../conformance-flows/payouts.ts';
import {
  newIn031Operations,
  tronRelay,
  v1RequestOperations,
} from '../conformance-flows/v1-tron.ts';
import {
  COMMERCE_OPERATOR,
  type ConformanceWorld,
  TRON_PAYER,
} from '../conformance-flows/world.ts';
import { startCrossChainWorld } from '../crosschain-world.ts';
import { createTenant } from '../fixtures.ts';
import { pathShape } from '../reference-versions.ts';
import { startTronWorld } from '../tron-world.ts';
import { testIndexer } from '../workers.ts';

/**
 * Every operation of the reference API (Request API 0.13.0 and 0.31.0, Auth API 0.14.0) that
 * we serve gets at least one answer here, through a real flow (a link paid on a local chain
 * running the Request contracts, found by the indexer; the flows are in test/conformance-flows/),
 * and every answer is checked against the reference's schema for its status (by the test app,
 * test/conformance.ts). An operation we serve with no conforming success answer fails the last
 * test: a new route implementing a reference operation must be exercised here. The flows share
 * one app, so that the last test sees every answer they got.
 */

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

describe('conformance with the reference API', () => {
  let world: ConformanceWorld;

  beforeAll(async () => {
    const local = await standIn('base');
    // Tron's contracts on the same local EVM, behind a Tron node, for the Tron relay.
    const tron = await startTronWorld(local.chain, [TRON_PAYER]);
    // Arbitrum and the fake routing aggregator, for the cross-chain operations.
    const crossChain = await startCrossChainWorld(local);
    const compliance = await startFakeCompliance({ webhookSecret: 'conformance-callback-secret' });
    // The off-ramp for crypto-to-fiat (Arbitrum's USDC): it answers deposit addresses only.
    const offramp = await startFakeOfframp({ webhookSecret: 'conformance-offramp-secret' });
    const t = await createTestApp({
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
    const tenant = await createTenant(t.db);
    world = {
      local,
      t,
      tenant,
      indexer: testIndexer(t, { confirmations: 1 }),
      tron,
      crossChain,
      compliance,
      offramp,
      headers: () => ({ 'x-api-key': tenant.apiKey }),
      ok: (res, status = 200) => expect(res.statusCode, res.body).toBe(status),
    };
  });
  afterAll(async () => {
    await world?.t.close();
    await world?.tron.close();
    await world?.crossChain.close();
    await world?.compliance.close();
    await world?.offramp.close();
    await world?.local.chain.close();
  });

  it('answers the currency operations, v2 and v1, with a credential or none', () =>
    currencyOperations(world));

  it('answers the client-ID operations', () => clientIdOperations(world));

  it('answers the payee-destination operations, with a signature made by the wallet', () =>
    payeeDestinationOperations(world));

  it('answers the request, link, calldata and payment operations before and after a payment', () =>
    requestAndLinkOperations(world));

  it('answers the recurring-request operations: the original, an occurrence, and PATCH', () =>
    recurringRequestOperations(world));

  it('relays a Tron link’s signed approval to the Tron node', () => tronRelay(world));

  it('answers the intent operations: a payer’s transaction, a Safe’s, and the 423 it puts on the link', () =>
    intentOperations(world));

  it('answers the payout-link operations: a payout link, its display, and a batch of two', () =>
    payoutLinkOperations(world));

  it('answers the multicall operations: creation, its view, the page view and Variant C', () =>
    multicallOperations(world));

  it('answers the recurring payout operations: creation, the signed permit, the status and a cancellation', () =>
    recurringPayoutOperations(world));

  it('answers the v1 request operations: by payment reference, paid on chain, and /v1/pay', () =>
    v1RequestOperations(world));

  it('answers the operations new in 0.31.0: health, history, export, funnel events, orchestrator creation', () =>
    newIn031Operations(world));

  it('answers the Auth API operations, the request list and the orchestrator links', () =>
    authOperations(world));

  it('answers the branding operations of an orchestrator', () => brandingOperations(world));

  it('answers the orchestrator webhook operations', () => orchestratorWebhookOperations(world));

  it('answers the fee preview and a link’s captured plan with an orchestrator’s fees (paired auth)', () =>
    feePreviewOperations(world));

  it('answers the link-intent operations', () => linkIntentOperations(world));

  it('answers the journey operations with the fields of the reference’s examples', () =>
    journeyOperations(world));

  it('answers the commerce operations: calldata, authorize, status, capture and void', () =>
    commerceOperations(world));

  it('answers the payer operations, v2 and v1, and the payer 404', () => payerOperations(world));

  it('answers crypto-to-fiat: a request with no payee, its /pay to the deposit address, and each refusal', () =>
    cryptoToFiatOperations(world));

  it('has a conforming success answer for every reference operation we serve', () => {
    const served = new Set(
      world.t.routes.map((route) => `${route.method} ${pathShape(route.url)}`),
    );
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
