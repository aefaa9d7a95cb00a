import type { LightMyRequestResponse } from 'fastify';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { createOrchestrator } from '../src/orchestrators/orchestrators.ts';
import type { TestApp } from './app.ts';
import type { Tenant } from './fixtures.ts';

/**
 * The Auth API's operations (0.14.0) and the Request API's account-side ones new in 0.31.0,
 * called once each with a success answer for test/e2e/conformance.test.ts (the test app checks
 * every answer against the ruling description): sign-up, sign-in by e-mail and by wallet,
 * client IDs, webhooks, the payee destination of a wallet session, the request list and an
 * orchestrator's client-ID links and fee configs.
 */

const WALLET_KEY = `0x${'5a'.repeat(32)}` as const;

function ok(res: LightMyRequestResponse, status = 200): LightMyRequestResponse {
  expect(res.statusCode, `${res.statusCode} ${res.body}`).toBe(status);
  return res;
}

export async function answerAuthOperations(
  t: TestApp,
  tenant: Tenant,
  destination: { readonly tokenAddress: string; readonly chainId: number },
): Promise<void> {
  const send = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    headers: Record<string, string> = {},
    payload?: object,
  ) => t.app.inject({ method, url, headers, ...(payload !== undefined && { payload }) });

  // Sign-up and sign-in by e-mail; the session signs out.
  const credentials = { email: 'conformance@example.com', password: 'a long enough password' };
  ok(await send('POST', '/v1/auth/register', {}, credentials), 201);
  const login = ok(await send('POST', '/v1/auth/login', {}, credentials));
  const session = { authorization: `Bearer ${login.json().sessionToken}` };

  // Client IDs of the session's account.
  const created = ok(
    await send('POST', '/v1/client-ids', session, {
      label: 'Shop',
      allowedDomains: ['https://shop.example'],
    }),
    201,
  );
  const clientPath = `/v1/client-ids/${created.json().id}`;
  ok(await send('GET', '/v1/client-ids', session));
  ok(await send('GET', clientPath, session));
  ok(await send('PUT', clientPath, session, { label: 'Shop, renamed' }));
  ok(await send('DELETE', clientPath, session));
  ok(await send('POST', '/v1/auth/logout', session));

  // Webhooks of a client ID.
  const asClient = { 'x-client-id': tenant.backendClientId };
  const hook = ok(
    await send('POST', '/v1/webhook', asClient, { url: 'https://hooks.example.com/payreq' }),
    201,
  );
  const hookPath = `/v1/webhook/${hook.json().id}`;
  ok(await send('GET', '/v1/webhook', asClient));
  // 0.14.0 says 201; we answer 200 until the webhook work changes it (conformance.test.ts
  // lists it among the known gaps).
  const sent = await send('POST', '/v1/webhook/test', asClient, { eventType: 'payment.confirmed' });
  expect([200, 201], sent.body).toContain(sent.statusCode);
  ok(await send('PUT', hookPath, asClient, { active: false }));
  // 0.14.0's toggle: no body.
  ok(await send('PUT', hookPath, asClient));
  ok(await send('DELETE', hookPath, asClient));

  // A wallet signs in and manages its payee destination.
  const wallet = privateKeyToAccount(WALLET_KEY);
  const challenge = ok(
    await send('POST', '/v1/auth/wallet/challenge', {}, { address: wallet.address, chainId: 8453 }),
    201,
  );
  const { challengeId, nonce, message } = challenge.json();
  const verified = ok(
    await send(
      'POST',
      '/v1/auth/wallet/verify',
      {},
      { challengeId, nonce, message, signature: await wallet.signMessage({ message }) },
    ),
  );
  const walletSession = { authorization: `Bearer ${verified.json().sessionToken}` };
  // 0.14.0 clients name the wallet too: the session's own.
  const named = { ...destination, walletAddress: wallet.address };
  const added = ok(await send('POST', '/v1/payee-destination', walletSession, named), 201);
  ok(await send('GET', '/v1/payee-destination', walletSession));
  const moved = ok(
    await send('PUT', '/v1/payee-destination', walletSession, {
      ...named,
      accessPolicy: {
        mode: 'off',
        screeningProvider: null,
        hideUntilApproved: false,
        hidePayeeAddress: true,
      },
    }),
  );
  const destinationId = moved.json().destinationId ?? added.json().destinationId;
  ok(
    await send(
      'GET',
      `/v1/payee-destination/lookup?destinationId=${encodeURIComponent(destinationId)}`,
      walletSession,
    ),
  );
  ok(
    await send(
      'GET',
      `/v1/payee-destination/payout-lookup?walletAddress=${wallet.address}`,
      walletSession,
    ),
  );
  ok(await send('PATCH', '/v1/payee-destination/deactivate', walletSession, { destinationId }));

  // The request list (0.31.0) and an orchestrator's client-ID links.
  ok(await send('GET', '/v2/request', { 'x-client-id': tenant.backendClientId }));
  ok(
    await send('GET', '/v2/request?securePaymentFlow=incoming', {
      'x-client-id': tenant.backendClientId,
    }),
  );
  const { orchestratorKey } = await createOrchestrator(t.db, 'Conformance platform');
  const asOrchestrator = { 'x-orchestrator-key': orchestratorKey };
  ok(
    await send('POST', '/v2/orchestrators/client-ids', asOrchestrator, {
      clientId: tenant.browserClientId,
    }),
    201,
  );
  ok(await send('GET', '/v2/orchestrators/client-ids', asOrchestrator));
  // Its fee configs: one for the linked client ID, listed, changed and disabled.
  const feeConfig = ok(
    await send('POST', '/v2/orchestrators/fee-configs', asOrchestrator, {
      flow: 'incoming',
      feeBearer: 'payer',
      bps: 50,
      usdCap: '0.40',
      evmRecipientAddress: privateKeyToAccount(WALLET_KEY).address,
      clientId: tenant.browserClientId,
    }),
    201,
  ).json().id as string;
  ok(
    await send(
      'GET',
      `/v2/orchestrators/fee-configs?clientId=${tenant.browserClientId}`,
      asOrchestrator,
    ),
  );
  ok(
    await send('PATCH', `/v2/orchestrators/fee-configs/${feeConfig}`, asOrchestrator, {
      bps: 75,
    }),
  );
  ok(await send('DELETE', `/v2/orchestrators/fee-configs/${feeConfig}`, asOrchestrator));
  ok(
    await send('DELETE', `/v2/orchestrators/client-ids/${tenant.browserClientId}`, asOrchestrator),
  );
}
