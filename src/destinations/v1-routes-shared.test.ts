import { and, eq } from 'drizzle-orm';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { createTenant } from '../../test/fixtures.ts';
import {
  addViaV2,
  BASE,
  boundClientId,
  boundTo,
  change,
  create,
  created,
  DAI_BASE,
  DEFAULT_POLICY,
  deactivate,
  evmSession,
  freshKey,
  getOwn,
  type Session,
  setupDestinationsApp,
  t,
  USDC_BASE,
  validationErrors,
} from '../../test/payee-destinations-v1.ts';
import { issueApiKey } from '../auth/api-keys.ts';
import { clientIds, payeeDestinations, requests } from '../db/schema.ts';

/**
 * /v1 and /v2 payee destinations as one model: a destination made through either route is the
 * other's too, client IDs bound to a wallet's destination follow it, and a wallet has one active
 * destination per account.
 */

setupDestinationsApp();

describe('one model with /v2/payee-destination', () => {
  it('a destination created here is found on /v2 with the wallet account’s API key', async () => {
    const payee = await evmSession();
    const mine = await created(payee);
    const { apiKey } = await issueApiKey(t.db, payee.accountId, 'dashboard');
    const headers = { 'x-api-key': apiKey };
    const active = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination?walletAddress=${payee.address}`,
      headers,
    });
    expect(active.statusCode, active.body).toBe(200);
    expect(active.json()).toEqual({
      id: mine.id,
      destinationId: mine.destinationId,
      walletAddress: mine.walletAddress,
      tokenAddress: mine.tokenAddress,
      chainId: mine.chainId,
      network: 'base',
      active: true,
      binaryInteropAddress: mine.binaryInteropAddress,
      humanReadableInteropAddress: mine.humanReadableInteropAddress,
      createdAt: mine.createdAt,
    });
    const one = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination/${encodeURIComponent(mine.destinationId)}`,
      headers,
    });
    expect(one.json().id).toBe(mine.id);

    // Another account's API key does not see it.
    const stranger = await createTenant(t.db, 'Stranger');
    const hidden = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination?walletAddress=${payee.address}`,
      headers: { 'x-api-key': stranger.apiKey },
    });
    expect(hidden.json()).toBeNull();

    // Deactivated here, gone on /v2.
    await deactivate(payee, mine.destinationId);
    const after = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination?walletAddress=${payee.address}`,
      headers,
    });
    expect(after.json()).toBeNull();
  });

  it('a destination added on /v2 is the wallet’s here, and changing it here ends it', async () => {
    const payee = await evmSession();
    const { apiKey } = await issueApiKey(t.db, payee.accountId);
    const added = await addViaV2(payee.account, apiKey, USDC_BASE);
    expect((await getOwn(payee)).json()).toMatchObject({
      id: added.id,
      destinationId: added.destinationId,
      accessPolicy: DEFAULT_POLICY,
      claimed: true,
      active: true,
    });
    const changed = await change(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(changed.statusCode, changed.body).toBe(200);
    const old = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination/${encodeURIComponent(added.destinationId)}`,
      headers: { 'x-api-key': apiKey },
    });
    expect(old.json()).toMatchObject({ id: added.id, active: false });
  });
});

describe('client IDs bound to the wallet’s destination', () => {
  /** A link and a request made with the client ID, and the destination rows they pay. */
  async function paidWith(clientId: { id: string; clientId: string }, currency: string) {
    const headers = { 'x-client-id': clientId.clientId };
    const link = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers,
      payload: { requests: [{ amount: '5' }] },
    });
    expect(link.statusCode, link.body).toBe(201);
    const request = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers,
      payload: { amount: '10', invoiceCurrency: currency, paymentCurrency: currency },
    });
    expect(request.statusCode, request.body).toBe(201);
    const ids = [...link.json<{ requestIds: string[] }>().requestIds, request.json().requestId];
    const rows = [];
    for (const requestId of ids) {
      const [row] = await t.db
        .select({
          destinationId: requests.destinationId,
          paymentCurrency: requests.paymentCurrency,
          payee: requests.payee,
        })
        .from(requests)
        .where(and(eq(requests.requestId, requestId), eq(requests.clientIdId, clientId.id)));
      rows.push(row);
    }
    return rows;
  }

  it('follow a change made with PUT: links and requests made with them pay the new destination', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const checkout = await boundClientId(payee, first.destinationId);
    expect(await paidWith(checkout, 'USDC-base')).toEqual([
      { destinationId: first.id, paymentCurrency: 'USDC-base', payee: payee.address },
      { destinationId: first.id, paymentCurrency: 'USDC-base', payee: payee.address },
    ]);

    t.clock.advance(1_000);
    const res = await change(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(res.statusCode, res.body).toBe(200);
    const moved = res.json();
    expect(moved.id).not.toBe(first.id);
    expect(await boundTo(payee, checkout.id)).toBe(moved.destinationId);
    const [row] = await t.db.select().from(clientIds).where(eq(clientIds.id, checkout.id));
    expect(row).toMatchObject({ payeeDestinationId: moved.id, updatedAt: t.clock.now() });
    expect(await paidWith(checkout, 'DAI-base')).toEqual([
      { destinationId: moved.id, paymentCurrency: 'DAI-base', payee: payee.address },
      { destinationId: moved.id, paymentCurrency: 'DAI-base', payee: payee.address },
    ]);
  });

  it('follow a change made with POST, and back to a reactivated destination', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const checkout = await boundClientId(payee, first.destinationId);
    const second = await created(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(await boundTo(payee, checkout.id)).toBe(second.destinationId);
    const again = await created(payee);
    expect(again.id).toBe(first.id);
    expect(await boundTo(payee, checkout.id)).toBe(first.destinationId);
    expect((await paidWith(checkout, 'USDC-base')).map((r) => r?.destinationId)).toEqual([
      first.id,
      first.id,
    ]);
  });

  it('follow a destination added on /v2 for the same wallet', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const checkout = await boundClientId(payee, first.destinationId);
    const { apiKey } = await issueApiKey(t.db, payee.accountId);
    const added = await addViaV2(payee.account, apiKey, DAI_BASE);
    expect(await boundTo(payee, checkout.id)).toBe(added.destinationId);
  });

  it('stay on a screened destination rather than follow to one that guards payers less', async () => {
    const payee = await evmSession();
    const screened = { mode: 'kyt_all_wallets', screeningProvider: 'hypernative' };
    const first = await created(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: screened,
    });
    const checkout = await boundClientId(payee, first.destinationId);

    await created(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(await boundTo(payee, checkout.id)).toBe(first.destinationId);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: { 'x-client-id': checkout.clientId },
      payload: { requests: [{ amount: '5' }] },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('destination_inactive');

    // A new destination screened as well: the binding follows.
    const third = await created(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: { ...screened, screeningProvider: 'merklescience' },
    });
    expect(third.id).toBe(first.id);
    const fourth = await created(payee, {
      tokenAddress: DAI_BASE,
      chainId: BASE,
      accessPolicy: { ...screened, hidePayeeAddress: true },
    });
    expect(await boundTo(payee, checkout.id)).toBe(fourth.destinationId);
  });

  it('leave revoked client IDs, explicitly ended destinations and other wallets’ bindings alone', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const revoked = await boundClientId(payee, first.destinationId);
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: `/v1/client-ids/${revoked.id}`,
      headers: payee.headers,
    });
    expect(revoke.statusCode, revoke.body).toBe(200);
    // Another wallet's destination in the same account (added with the account's API key).
    const { apiKey } = await issueApiKey(t.db, payee.accountId);
    const otherWallet = privateKeyToAccount(freshKey());
    const theirs = await addViaV2(otherWallet, apiKey, USDC_BASE);
    const elsewhere = await boundClientId(payee, theirs.destinationId);
    // Deactivated on purpose, then a new one set: the deactivation was the wallet's choice.
    const ended = await boundClientId(payee, first.destinationId);
    expect((await deactivate(payee, first.destinationId)).statusCode).toBe(200);

    await created(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(await boundTo(payee, revoked.id)).toBe(first.destinationId);
    expect(await boundTo(payee, ended.id)).toBe(first.destinationId);
    expect(await boundTo(payee, elsewhere.id)).toBe(theirs.destinationId);
  });
});

describe('one active destination per wallet and account', () => {
  async function activeRows(session: Session) {
    return t.db
      .select({ id: payeeDestinations.id, tokenAddress: payeeDestinations.tokenAddress })
      .from(payeeDestinations)
      .where(
        and(
          eq(payeeDestinations.accountId, session.accountId),
          eq(payeeDestinations.walletAddress, session.address),
          eq(payeeDestinations.active, true),
        ),
      );
  }

  it('holds when creates for different tokens race: every one succeeds, one stays active', async () => {
    const payee = await evmSession();
    // Several at once, so that on Postgres some transactions overlap.
    const answers = await Promise.all(
      [USDC_BASE, DAI_BASE, USDC_BASE, DAI_BASE, USDC_BASE, DAI_BASE].map((tokenAddress) =>
        create(payee, { tokenAddress, chainId: BASE }),
      ),
    );
    expect(answers.map((res) => res.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    const active = await activeRows(payee);
    expect(active).toHaveLength(1);
    expect(answers.map((res) => res.json().id)).toContain(active[0]?.id);
    expect((await getOwn(payee)).json().id).toBe(active[0]?.id);
  });

  it('holds when a create and a change race, and bound client IDs end on the survivor', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const checkout = await boundClientId(payee, first.destinationId);
    const answers = await Promise.all([
      create(payee, { tokenAddress: DAI_BASE, chainId: BASE }),
      change(payee, { tokenAddress: DAI_BASE, chainId: BASE }),
      change(payee, { tokenAddress: USDC_BASE, chainId: BASE }),
    ]);
    // The wallet always has an active destination here, so every change finds one.
    expect(answers.map((res) => res.statusCode)).toEqual([201, 200, 200]);
    const active = await activeRows(payee);
    expect(active).toHaveLength(1);
    expect(await boundTo(payee, checkout.id)).toBe((await getOwn(payee)).json().destinationId);
  });

  it('never leaves a client ID bound to an ended destination when binding races a change', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const unbound = await t.app.inject({
      method: 'POST',
      url: '/v1/client-ids',
      headers: payee.headers,
      payload: { label: 'Late binding' },
    });
    expect(unbound.statusCode, unbound.body).toBe(201);
    const { id } = unbound.json();
    const [bind, moved] = await Promise.all([
      t.app.inject({
        method: 'PUT',
        url: `/v1/client-ids/${id}`,
        headers: payee.headers,
        payload: { payeeDestinationId: first.destinationId },
      }),
      change(payee, { tokenAddress: DAI_BASE, chainId: BASE }),
    ]);
    expect(moved.statusCode, moved.body).toBe(200);
    // Either order is fine: bound first, then moved along; or refused, the destination ended.
    if (bind.statusCode === 200) {
      expect(await boundTo(payee, id)).toBe(moved.json().destinationId);
    } else {
      expect(validationErrors(bind)).toEqual([
        { field: 'payeeDestinationId', message: 'is inactive; bind an active payee destination' },
      ]);
      expect(await boundTo(payee, id)).toBeNull();
    }
  });

  it('is held by the database as well: a second active row for the wallet is refused', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const second = await created(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    const error = await t.db
      .update(payeeDestinations)
      .set({ active: true })
      .where(eq(payeeDestinations.id, first.id))
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(String((error as { cause?: unknown } | null)?.cause)).toContain(
      'payee_destinations_one_active_per_wallet',
    );
    expect((await activeRows(payee)).map((r) => r.id)).toEqual([second.id]);
  });
});
