import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import {
  apiKey,
  backend,
  createLink,
  DAY_MS,
  destination,
  get,
  type Headers,
  PAY_URL,
  rival,
  setLinkStatus,
  setupSecurePaymentsApp,
  t,
  validationFailed,
} from '../../test/secure-payments.ts';
import type { DestinationRow } from '../destinations/destinations.ts';
import { LINK_LIFETIME_MS } from './insert-link.ts';

/**
 * `GET /v2/secure-payments` over HTTP on the real app: the account's list of links with its
 * filters and cursor, and the reference's lookup of one request's link.
 */

setupSecurePaymentsApp();

describe('GET /v2/secure-payments: the account’s list', () => {
  let lister: Tenant;
  let dest: DestinationRow;
  /** Oldest first, one minute apart. */
  const made: { token: string; requestIds: string[]; at: Date }[] = [];

  beforeAll(async () => {
    lister = await createTenant(t.db, 'Lister');
    dest = await destination(lister);
    const other = await destination(lister);
    for (let i = 0; i < 5; i++) {
      t.clock.advance(60_000);
      const items =
        i === 2
          ? [
              { destinationId: dest.destinationId, amount: '1' },
              { destinationId: other.destinationId, amount: '2' },
            ]
          : [{ destinationId: dest.destinationId, amount: `${i + 1}` }];
      const link = await createLink(lister, items, { reference: `ref-${i}` });
      made.push({ ...link, at: t.clock.now() });
    }
    // Noise in other accounts: never listed.
    await createLink(rival, [
      { destinationId: (await destination(rival)).destinationId, amount: '1' },
    ]);
  });

  function list(query: Record<string, string> = {}, headers: Headers = apiKey(lister)) {
    const search = new URLSearchParams(query).toString();
    return get(`/v2/secure-payments${search ? `?${search}` : ''}`, headers);
  }
  const tokensOf = (res: { json(): { securePayments: { token: string }[] } }) =>
    res.json().securePayments.map((p) => p.token);
  const newestFirst = () => [...made].reverse().map((m) => m.token);

  it('lists only the caller’s links, newest first, with each link’s summary', async () => {
    const res = await list();
    expect(res.statusCode, res.body).toBe(200);
    expect(tokensOf(res)).toEqual(newestFirst());
    expect(res.json().pagination).toEqual({ limit: 20, nextCursor: null, hasMore: false });
    const batch = made[2];
    expect(res.json().securePayments[2]).toEqual({
      token: batch?.token,
      securePaymentUrl: `${PAY_URL}/?token=${batch?.token}`,
      status: 'pending',
      payout: false,
      paymentType: 'batch',
      requestIds: batch?.requestIds,
      network: 'base',
      reference: 'ref-2',
      redirectUrl: null,
      redirectLabel: 'Go Back and Close',
      createdAt: batch?.at.toISOString(),
      expiresAt: new Date((batch?.at.getTime() ?? 0) + LINK_LIFETIME_MS).toISOString(),
      completedAt: null,
    });
    expect(res.json().securePayments[0].paymentType).toBe('single');

    // A client ID may be a browser's: the list is for server-side credentials only.
    const viaClientId = await list({}, backend(lister));
    expect(viaClientId.statusCode).toBe(403);
    expect(viaClientId.json().code).toBe('credential_not_accepted');
    const rivals = tokensOf(await list({}, apiKey(rival)));
    expect(rivals.length).toBeGreaterThan(0);
    for (const token of rivals) expect(newestFirst()).not.toContain(token);
  });

  it('answers the reference’s lookup object for requestId alone, any request of a batch included', async () => {
    const batch = made[2];
    for (const requestId of batch?.requestIds ?? []) {
      const res = await list({ requestId });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        token: batch?.token,
        securePaymentUrl: `https://pay.payreq.test/?token=${batch?.token}`,
        status: 'pending',
        paymentType: 'batch',
        completedAt: null,
        payerAddress: null,
        payerKytResults: [],
        payeeKytResults: [],
        claimedDestination: null,
        orchestratorId: null,
        // A batch link carries no fee plan: its payment is one batch call, no fee legs after.
        feePlan: null,
        executionKind: null,
        identityMode: 'manual_dashboard',
        clientId: null,
        branding: { whitelabelEnabled: false, source: 'request_network' },
        childExecutable: false,
        blockReason: 'not_outgoing',
        requestIds: batch?.requestIds,
      });
    }
    const upper = await list({ requestId: (made[4]?.requestIds[0] ?? '').toUpperCase() });
    expect(upper.json().token).toBe(made[4]?.token);
    const unknown = await list({ requestId: `01${'0'.repeat(64)}` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('secure_payment_not_found');
    const rivalLink = (await list({}, apiKey(rival))).json().securePayments[0];
    const theirs = await list({ requestId: rivalLink.requestIds[0] });
    expect(theirs.statusCode).toBe(404);
  });

  it('filters the list by requestId when another filter comes with it', async () => {
    const batch = made[2];
    const res = await list({ requestId: batch?.requestIds[1] ?? '', limit: '5' });
    expect(tokensOf(res)).toEqual([batch?.token]);
    const unknown = await list({ requestId: `01${'0'.repeat(64)}`, limit: '5' });
    expect(unknown.json()).toEqual({
      securePayments: [],
      pagination: { limit: 5, nextCursor: null, hasMore: false },
    });
  });

  it('filters by payout=true and payout=false', async () => {
    const payoutToken = made[1]?.token ?? '';
    await setLinkStatus(payoutToken, { payout: true });
    try {
      expect(tokensOf(await list({ payout: 'true' }))).toEqual([payoutToken]);
      expect(tokensOf(await list({ payout: 'false' }))).toEqual(
        newestFirst().filter((token) => token !== payoutToken),
      );
      const payoutItem = (await list({ payout: 'true' })).json().securePayments[0];
      expect(payoutItem.payout).toBe(true);
      expect((await list({ payout: 'yes' })).statusCode).toBe(400);
    } finally {
      await setLinkStatus(payoutToken, { payout: false });
    }
  });

  it('filters by createdFrom and createdTo, both inclusive', async () => {
    const at = (i: number) => made[i]?.at.toISOString() ?? '';
    expect(tokensOf(await list({ createdFrom: at(3) }))).toEqual([made[4]?.token, made[3]?.token]);
    expect(tokensOf(await list({ createdTo: at(1) }))).toEqual([made[1]?.token, made[0]?.token]);
    expect(tokensOf(await list({ createdFrom: at(1), createdTo: at(3) }))).toEqual([
      made[3]?.token,
      made[2]?.token,
      made[1]?.token,
    ]);
    const between = new Date((made[2]?.at.getTime() ?? 0) + 1).toISOString();
    expect(tokensOf(await list({ createdFrom: between, createdTo: between }))).toEqual([]);
  });

  it.each([
    ['createdFrom', 'not-a-date'],
    ['createdTo', 'not-a-date'],
    ['createdFrom', '2026-13-45'],
    ['createdTo', ''],
    ['createdFrom', '2026-02-30T00:00:00Z'],
    ['createdFrom', '2026-11-22T10:00:00'],
    ['createdTo', '2026-11-22 10:00:00Z'],
    ['createdTo', 'Sun, 22 Nov 2026 10:00:00 GMT'],
  ])('answers 400 for a %s that is no zoned ISO date-time (%j)', async (field, value) => {
    const res = await list({ [field]: value });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject(
      validationFailed([
        {
          field,
          message: 'must be an ISO 8601 date-time with a time zone, such as 2026-01-31T00:00:00Z',
        },
      ]),
    );
  });

  it('reads an offset as the instant it names', async () => {
    // made[1]'s time, written as a clock one hour ahead of UTC shows it.
    const instant = made[1]?.at.getTime() ?? 0;
    const inParis = `${new Date(instant + 3_600_000).toISOString().slice(0, -1)}+01:00`;
    expect(tokensOf(await list({ createdTo: inParis }))).toEqual([made[1]?.token, made[0]?.token]);
  });

  it('pages with a cursor: no overlap, nothing skipped, nextCursor null on the last page', async () => {
    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await list({ limit: '2', ...(cursor !== null && { cursor }) });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      seen.push(...tokensOf(res));
      pages.push(body.securePayments.length);
      expect(body.pagination.limit).toBe(2);
      expect(body.pagination.hasMore).toBe(body.pagination.nextCursor !== null);
      cursor = body.pagination.nextCursor;
    } while (cursor !== null);
    expect(pages).toEqual([2, 2, 1]);
    expect(seen).toEqual(newestFirst());
  });

  it('pages without overlap through links created at the same instant', async () => {
    const same = await createTenant(t.db, 'Same instant');
    const target = await destination(same);
    const tokens: string[] = [];
    for (let i = 0; i < 7; i++) {
      tokens.push(
        (await createLink(same, [{ destinationId: target.destinationId, amount: '1' }])).token,
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list({ limit: '3', ...(cursor !== null && { cursor }) }, apiKey(same));
      seen.push(...tokensOf(res));
      cursor = res.json().pagination.nextCursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(7);
    expect(new Set(seen)).toEqual(new Set(tokens));
  });

  it('combines the cursor with filters', async () => {
    const first = await list({ limit: '1', createdTo: made[3]?.at.toISOString() ?? '' });
    expect(tokensOf(first)).toEqual([made[3]?.token]);
    const second = await list({
      limit: '1',
      createdTo: made[3]?.at.toISOString() ?? '',
      cursor: first.json().pagination.nextCursor,
    });
    expect(tokensOf(second)).toEqual([made[2]?.token]);
  });

  it.each([
    ['garbage', 'garbage'],
    ['base64 of no cursor', Buffer.from('hello|world').toString('base64url')],
    [
      'a cursor with a bad id',
      Buffer.from(`${new Date().toISOString()}|1; drop`).toString('base64url'),
    ],
    ['empty', ''],
    ['256 characters long', 'a'.repeat(256)],
  ])('answers 400 for a cursor that is %s', async (_case, cursor) => {
    const res = await list({ cursor });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'cursor is not one this API returned',
      code: 'invalid_cursor',
    });
  });

  it.each([['0'], ['101'], ['two']])('answers 400 for limit=%s', async (limit) => {
    const res = await list({ limit });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().message).toBe('Validation failed');
  });

  it('shows an expired link as expired', async () => {
    const res = await list({ requestId: made[0]?.requestIds[0] ?? '' });
    expect(res.json().status).toBe('pending');
    t.clock.advance(8 * DAY_MS);
    const later = await list({ requestId: made[0]?.requestIds[0] ?? '' });
    expect(later.json().status).toBe('expired');
    const listed = await list({ requestId: made[0]?.requestIds[0] ?? '', limit: '1' });
    expect(listed.json().securePayments[0].status).toBe('expired');
  });
});

describe('GET /v2/dashboard/links/{token}: one link as the list shows it', () => {
  it('answers the list’s item whatever the status, and 404 for another account’s link', async () => {
    const owner = await createTenant(t.db, 'One link');
    const dest = await destination(owner);
    const link = await createLink(owner, [{ destinationId: dest.destinationId, amount: '7' }], {
      reference: 'order-7',
    });
    const listed = await get('/v2/secure-payments?limit=1', apiKey(owner));
    const item = await get(`/v2/dashboard/links/${link.token.toLowerCase()}`, apiKey(owner));
    expect(item.statusCode, item.body).toBe(200);
    expect(item.json()).toEqual(listed.json().securePayments[0]);
    expect(item.json()).toMatchObject({ token: link.token, reference: 'order-7' });

    // Paid: the pay page's read answers 409, this one the item.
    await setLinkStatus(link.token, { status: 'completed', completedAt: t.clock.now() });
    const paid = await get(`/v2/dashboard/links/${link.token}`, apiKey(owner));
    expect(paid.json().status).toBe('completed');

    const theirs = await get(`/v2/dashboard/links/${link.token}`, apiKey(rival));
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().code).toBe('secure_payment_not_found');
  });
});

describe('GET /v2/secure-payments?status= (ours)', () => {
  it('keeps the links awaiting payment, the expired ones or the completed ones', async () => {
    const owner = await createTenant(t.db, 'By status');
    const dest = await destination(owner);
    const make = () => createLink(owner, [{ destinationId: dest.destinationId, amount: '1' }]);
    const [waiting, paid, lapsed] = [await make(), await make(), await make()];
    await setLinkStatus(paid.token, { status: 'completed', completedAt: t.clock.now() });
    await setLinkStatus(lapsed.token, { expiresAt: new Date(t.clock.now().getTime() - 1) });
    const tokens = async (status: string) =>
      (await get(`/v2/secure-payments?status=${status}`, apiKey(owner)))
        .json()
        .securePayments.map((link: { token: string }) => link.token);
    expect(await tokens('pending')).toEqual([waiting.token]);
    expect(await tokens('completed')).toEqual([paid.token]);
    expect(await tokens('expired')).toEqual([lapsed.token]);
    expect((await get('/v2/secure-payments?status=paid', apiKey(owner))).statusCode).toBe(400);
  });
});
