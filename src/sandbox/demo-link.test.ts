import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { accounts, apiKeys } from '../db/schema.ts';
import { loadLink } from '../secure-payments/links.ts';
import { sandboxWallets } from './addresses.ts';
import { createDemoLink } from './demo-link.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { SANDBOX: 'true', PAY_URL: 'http://localhost:8080' } });
});
afterAll(async () => {
  await t?.close();
});

describe('the sandbox demo link', () => {
  it('asks 10 USDC-sandbox for test wallet 1, a new link at each start under one keyless account', async () => {
    const deps = { db: t.db, clock: t.clock, chains: t.chains, payUrl: t.config.payUrl };
    const first = await createDemoLink(deps);
    const second = await createDemoLink(deps);
    expect(first.url).toBe(`http://localhost:8080/?token=${first.token}`);
    expect(second.token).not.toBe(first.token);

    const demo = await t.db
      .select()
      .from(accounts)
      .where(eq(accounts.name, 'Sandbox demo (payreq)'));
    expect(demo).toHaveLength(1);
    const accountId = demo[0]?.id ?? '';
    expect(await t.db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId))).toEqual([]);

    const link = await loadLink(t.db, t.clock, { accountId }, first.token);
    expect(link.status).toBe('pending');
    expect(link.requests).toHaveLength(1);
    expect(link.requests[0]).toMatchObject({
      network: 'sandbox',
      paymentCurrency: 'USDC-sandbox',
      expectedAmount: 10_000_000n,
      payee: sandboxWallets()[1]?.address,
    });
  });
});
