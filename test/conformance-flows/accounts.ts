import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { createClientId } from '../../src/auth/client-ids.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { linkClientId } from '../../src/orchestrators/links.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import { answerAuthOperations } from '../conformance-auth.ts';
import { bankBody, kycBody } from '../payer-world.ts';
import { startReceiver } from '../webhook-receiver.ts';
import { type ConformanceWorld, PAYEE_KEY, USDC_BASE_ID } from './world.ts';

/**
 * The conformance flows of accounts and platforms: currencies, client IDs, payee destinations,
 * payers, the Auth API, and an orchestrator’s branding, webhooks and fees.
 */

/** Answers the currency operations, v2 and v1, with a credential or none. */
export async function currencyOperations(world: ConformanceWorld): Promise<void> {
  const { t, headers, ok } = world;
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
}

/** Answers the client-ID operations. */
export async function clientIdOperations(world: ConformanceWorld): Promise<void> {
  const { t, headers, ok } = world;
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
}

/** Answers the payee-destination operations, with a signature made by the wallet. */
export async function payeeDestinationOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, headers, ok } = world;
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
}

/** Answers the Auth API operations, the request list and the orchestrator links. */
export async function authOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, tenant } = world;
  await answerAuthOperations(t, tenant, {
    tokenAddress: local.chain.addresses.usdc,
    chainId: 8453,
  });
}

/** Answers the branding operations of an orchestrator. */
export async function brandingOperations(world: ConformanceWorld): Promise<void> {
  const { t, tenant, ok } = world;
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
}

/** Answers the orchestrator webhook operations. */
export async function orchestratorWebhookOperations(world: ConformanceWorld): Promise<void> {
  const { t, ok } = world;
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
}

/** Answers the fee preview and a link’s captured plan with an orchestrator’s fees (paired auth). */
export async function feePreviewOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, tenant, headers, ok } = world;
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
}

/** Answers the payer operations, v2 and v1, and the payer 404. */
export async function payerOperations(world: ConformanceWorld): Promise<void> {
  const { t, headers, ok } = world;
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
}
