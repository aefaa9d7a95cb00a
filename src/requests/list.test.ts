import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import {
  apiKey,
  backendClient,
  created,
  type Headers,
  setupRequestsApp,
  t,
  tenantB,
  validationErrors,
  wallet,
} from '../../test/requests.ts';

/**
 * `GET /v2/request` over HTTP on the real app: the caller's requests, newest first, narrowed
 * by payee wallet and paged.
 */

setupRequestsApp();

function list(query: string, headers: Headers) {
  return t.app.inject({ method: 'GET', url: `/v2/request${query}`, headers });
}

describe('GET /v2/request', () => {
  let tenant: Tenant;
  /** Oldest first, as created. */
  const ids: string[] = [];

  beforeAll(async () => {
    tenant = await createTenant(t.db, 'Lister');
    for (let i = 0; i < 5; i++) {
      const payee = i % 2 === 0 ? wallet(1).address : wallet(3).address;
      const { requestId } = await created({ amount: `${i + 1}`, payee }, apiKey(tenant));
      ids.push(requestId);
    }
    // Another account's request for the same payee must never show.
    await created({ payee: wallet(1).address }, apiKey(tenantB));
  });

  it("lists only the caller's account, newest first", async () => {
    const res = await list('', apiKey(tenant));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.requests.map((r: { requestId: string }) => r.requestId)).toEqual(
      [...ids].reverse(),
    );
    expect(body.requests[0]).toMatchObject({ expectedAmount: '5', status: 'pending' });
    expect(body.pagination).toEqual({ limit: 20, offset: 0, hasMore: false, nextCursor: null });
  });

  it('shows a client ID only the requests made with it (it may be a public browser one)', async () => {
    const other = await createTenant(t.db, 'Client lister');
    await created({ amount: '7' }, apiKey(other));
    expect((await list('', backendClient(other))).json().requests).toEqual([]);
    const own = await created({ amount: '8' }, backendClient(other));
    const viaClient = await list('', backendClient(other));
    expect(viaClient.json().requests.map((r: { requestId: string }) => r.requestId)).toEqual([
      own.requestId,
    ]);
    // The account's API key still lists both.
    expect((await list('', apiKey(other))).json().requests).toHaveLength(2);
  });

  it('narrows to one payee wallet, in any case', async () => {
    const expected = [ids[4], ids[2], ids[0]];
    for (const spelling of [
      wallet(1).address,
      wallet(1).address.toLowerCase(),
      `0x${wallet(1).address.slice(2).toUpperCase()}`,
    ]) {
      const res = await list(`?walletAddress=${spelling}`, apiKey(tenant));
      expect(res.statusCode).toBe(200);
      expect(
        res.json().requests.map((r: { requestId: string }) => r.requestId),
        spelling,
      ).toEqual(expected);
    }
    const none = await list(
      '?walletAddress=0x000000000000000000000000000000000000dEaD',
      apiKey(tenant),
    );
    expect(none.json()).toEqual({
      requests: [],
      pagination: { limit: 20, offset: 0, hasMore: false, nextCursor: null },
    });
  });

  it('pages with limit and offset and says when there is more', async () => {
    const newestFirst = [...ids].reverse();
    const page = async (limit: number, offset: number) =>
      (await list(`?limit=${limit}&offset=${offset}`, apiKey(tenant))).json();

    const first = await page(2, 0);
    expect(first.requests.map((r: { requestId: string }) => r.requestId)).toEqual(
      newestFirst.slice(0, 2),
    );
    expect(first.pagination).toEqual({
      limit: 2,
      offset: 0,
      hasMore: true,
      nextCursor: expect.any(String),
    });
    const second = await page(2, 2);
    expect(second.requests.map((r: { requestId: string }) => r.requestId)).toEqual(
      newestFirst.slice(2, 4),
    );
    expect(second.pagination.hasMore).toBe(true);
    const last = await page(2, 4);
    expect(last.requests.map((r: { requestId: string }) => r.requestId)).toEqual(
      newestFirst.slice(4),
    );
    expect(last.pagination).toEqual({ limit: 2, offset: 4, hasMore: false, nextCursor: null });
    const exact = await page(5, 0);
    expect(exact.requests).toHaveLength(5);
    expect(exact.pagination.hasMore).toBe(false);
    const beyond = await page(2, 10);
    expect(beyond).toEqual({
      requests: [],
      pagination: { limit: 2, offset: 10, hasMore: false, nextCursor: null },
    });
  });

  it('pages with the cursor, narrowed or not, without skipping or repeating', async () => {
    const ofPages = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const after: string = cursor === null ? '' : `&cursor=${cursor}`;
        const res = await list(`?limit=2${query}${after}`, apiKey(tenant));
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json();
        expect(body.pagination.offset).toBe(0);
        seen.push(...body.requests.map((r: { requestId: string }) => r.requestId));
        cursor = body.pagination.nextCursor;
      } while (cursor !== null);
      return seen;
    };
    expect(await ofPages('')).toEqual([...ids].reverse());
    expect(await ofPages(`&walletAddress=${wallet(1).address.toLowerCase()}`)).toEqual([
      ids[4],
      ids[2],
      ids[0],
    ]);
  });

  it('refuses an offset past the bound, an offset with a cursor and a forged cursor', async () => {
    expect(validationErrors(await list('?offset=10001', apiKey(tenant)))).toEqual([
      {
        field: 'offset',
        message: 'must be <= 10000; page further with cursor (pagination.nextCursor)',
      },
    ]);
    expect((await list('?offset=10000', apiKey(tenant))).statusCode).toBe(200);
    const first = (await list('?limit=1', apiKey(tenant))).json();
    expect(
      validationErrors(
        await list(`?offset=1&cursor=${first.pagination.nextCursor}`, apiKey(tenant)),
      ),
    ).toEqual([
      {
        field: 'offset',
        message: 'must not be sent with cursor: a cursor already says where the page starts',
      },
    ]);
    const forged = await list(
      `?cursor=${Buffer.from('yesterday|1').toString('base64url')}`,
      apiKey(tenant),
    );
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toMatchObject({
      statusCode: 400,
      message: 'cursor is not one this API returned',
    });
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?offset=-1', 'offset'],
    ['?limit=abc', 'limit'],
  ])('refuses %s', async (query, field) => {
    const res = await list(query, apiKey(tenant));
    expect(validationErrors(res).map((e) => e.field)).toContain(field);
  });
});
