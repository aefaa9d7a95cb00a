import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createTenant } from '../../test/fixtures.ts';
import {
  apiKey,
  BASE_USDC,
  create,
  destination,
  setupSecurePaymentsApp,
  shop,
  TRON_WALLET,
  t,
  wallet,
} from '../../test/secure-payments.ts';
import { createClientId } from '../auth/client-ids.ts';
import { securePayments } from '../db/schema.ts';
import { activateDestination } from '../destinations/destinations.ts';
import { resolveTarget } from '../destinations/target.ts';
import { updateKytPlan } from '../orchestrators/kyt-plans.ts';
import { linkClientId } from '../orchestrators/links.ts';
import { createOrchestrator } from '../orchestrators/orchestrators.ts';
import { PROVIDER_FORBIDDEN_MESSAGE, PROVIDER_REQUIRED_MESSAGE } from './link-policy.ts';

/**
 * A link's payer rules as creation resolves and stores them (api-facts §11.5): the client ID's
 * KYT plan, else the link's own policy, else its destination's; the allowlist checked and kept
 * in compared form.
 */

setupSecurePaymentsApp();

async function stored(token: string) {
  const [row] = await t.db.select().from(securePayments).where(eq(securePayments.token, token));
  return row?.screening;
}

async function created(headers: Record<string, string>, body: Record<string, unknown>) {
  const res = await create(headers, body);
  expect(res.statusCode, res.body).toBe(201);
  return stored(res.json().token);
}

describe('accessPolicy on a link', () => {
  it('stores nothing for a link anyone may pay unscreened', async () => {
    const { destinationId } = await destination(shop);
    for (const accessPolicy of [undefined, { mode: 'off' }, { mode: 'inherit' }]) {
      const screening = await created(apiKey(shop), {
        requests: [{ destinationId, amount: '1' }],
        ...(accessPolicy && { accessPolicy }),
      });
      expect(screening).toBeNull();
    }
  });

  it('keeps the allowlist in compared form: EVM lower-cased and once, Tron as written', async () => {
    const { destinationId } = await destination(shop);
    const evm = wallet(900);
    const screening = await created(apiKey(shop), {
      requests: [{ destinationId, amount: '1' }],
      accessPolicy: { allowedPayerAddresses: [evm, evm.toLowerCase(), TRON_WALLET] },
    });
    expect(screening).toEqual({
      mode: 'off',
      providers: [],
      source: 'none',
      allowedPayerAddresses: [evm.toLowerCase(), TRON_WALLET],
    });
  });

  it('screens with the link’s provider, or else the destination’s', async () => {
    const { destinationId } = await destination(shop);
    expect(
      await created(apiKey(shop), {
        requests: [{ destinationId, amount: '1' }],
        accessPolicy: { mode: 'kyt_all_wallets', screeningProvider: 'merklescience' },
      }),
    ).toEqual({
      mode: 'kyt_all_wallets',
      providers: [{ provider: 'merklescience', policyId: null }],
      source: 'payment',
      allowedPayerAddresses: [],
    });
    const screened = await activateDestination(
      t.db,
      t.clock,
      shop.accountId,
      resolveTarget(t.chains, {
        walletAddress: wallet(901),
        chainId: 8453,
        tokenAddress: BASE_USDC,
      }),
      {
        mode: 'kyt_all_wallets',
        screeningProvider: 'hypernative',
        hideUntilApproved: false,
        hidePayeeAddress: false,
      },
    );
    const inherited = { requests: [{ destinationId: screened.destinationId, amount: '1' }] };
    expect(await created(apiKey(shop), inherited)).toMatchObject({
      mode: 'kyt_all_wallets',
      providers: [{ provider: 'hypernative', policyId: null }],
      source: 'destination',
    });
    // The link's own `off` overrides the destination's screening.
    expect(await created(apiKey(shop), { ...inherited, accessPolicy: { mode: 'off' } })).toBeNull();
  });

  it('screens concurrent links, written together, each by its own destination', async () => {
    const plain = await destination(shop);
    const screened = await activateDestination(
      t.db,
      t.clock,
      shop.accountId,
      resolveTarget(t.chains, {
        walletAddress: wallet(902),
        chainId: 8453,
        tokenAddress: BASE_USDC,
      }),
      {
        mode: 'kyt_all_wallets',
        screeningProvider: 'merklescience',
        hideUntilApproved: false,
        hidePayeeAddress: false,
      },
    );
    // Links made at once are written in groups (link-group.ts), alone or with an allowlist
    // (which the destination's screening keeps, or which is all that a plain one stores).
    const allowed = wallet(904);
    const links = Array.from({ length: 12 }, (_, i) => ({
      destinationId: i % 2 === 0 ? screened.destinationId : plain.destinationId,
      allowlist: i % 4 >= 2,
    }));
    const screenings = await Promise.all(
      links.map(({ destinationId, allowlist }) =>
        created(apiKey(shop), {
          requests: [{ destinationId, amount: '1' }],
          ...(allowlist && { accessPolicy: { allowedPayerAddresses: [allowed] } }),
        }),
      ),
    );
    screenings.forEach((screening, i) => {
      const link = links[i];
      const allowedPayerAddresses = link?.allowlist ? [allowed.toLowerCase()] : [];
      if (link?.destinationId === screened.destinationId) {
        expect(screening).toEqual({
          mode: 'kyt_all_wallets',
          providers: [{ provider: 'merklescience', policyId: null }],
          source: 'destination',
          allowedPayerAddresses,
        });
      } else if (link?.allowlist) {
        expect(screening).toEqual({
          mode: 'off',
          providers: [],
          source: 'none',
          allowedPayerAddresses,
        });
      } else expect(screening).toBeNull();
    });
  });

  it('takes the KYT plan of the client ID’s orchestrator link over the link’s own policy', async () => {
    const merchant = await createTenant(t.db, 'Planned merchant');
    const bound = await activateDestination(
      t.db,
      t.clock,
      merchant.accountId,
      resolveTarget(t.chains, {
        walletAddress: wallet(902),
        chainId: 8453,
        tokenAddress: BASE_USDC,
      }),
    );
    const client = await createClientId(t.db, {
      accountId: merchant.accountId,
      label: 'Planned',
      allowedDomains: [],
      payeeDestinationId: bound.destinationId,
    });
    const platform = await createOrchestrator(t.db, 'Plan platform');
    await linkClientId(t.db, platform.orchestratorId, client.clientId);
    const policyId = '0f6b7d33-93f4-4ad0-8f0f-5d4d3f1a2b3c';
    await updateKytPlan(t.db, merchant.accountId, client.id, {
      providers: [{ provider: 'merklescience' }, { provider: 'hypernative', policyId }],
    });
    const screening = await created(
      { 'x-orchestrator-key': platform.orchestratorKey, 'x-client-id': client.clientId },
      {
        requests: [{ amount: '1' }],
        accessPolicy: { mode: 'off', allowedPayerAddresses: [wallet(903)] },
      },
    );
    expect(screening).toEqual({
      mode: 'kyt_all_wallets',
      providers: [
        { provider: 'merklescience', policyId: null },
        { provider: 'hypernative', policyId },
      ],
      source: 'plan',
      allowedPayerAddresses: [wallet(903).toLowerCase()],
    });
  });

  it.each([
    [{ mode: 'kyt_all_wallets' }, PROVIDER_REQUIRED_MESSAGE],
    [{ mode: 'kyt_all_wallets', screeningProvider: null }, PROVIDER_REQUIRED_MESSAGE],
    [{ mode: 'off', screeningProvider: 'hypernative' }, PROVIDER_FORBIDDEN_MESSAGE],
    [{ mode: 'inherit', screeningProvider: 'hypernative' }, PROVIDER_FORBIDDEN_MESSAGE],
  ])('refuses %j: screeningProvider %s', async (accessPolicy, message) => {
    const { destinationId } = await destination(shop);
    const res = await create(apiKey(shop), {
      requests: [{ destinationId, amount: '1' }],
      accessPolicy,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'accessPolicy.screeningProvider', message }]);
  });
});
