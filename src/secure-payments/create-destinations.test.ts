import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import {
  apiKey,
  BASE_CHAIN_ID,
  BASE_USDC,
  backend,
  badRequest,
  create,
  destination,
  expectRefused,
  requestRows,
  rival,
  setupSecurePaymentsApp,
  shop,
  TRON_USDT,
  TRON_WALLET,
  t,
  validationFailed,
  wallet,
} from '../../test/secure-payments.ts';
import { TRON_CHAIN_ID } from '../chains/networks.ts';
import {
  bindDestination,
  type DestinationRow,
  deactivateDestination,
} from '../destinations/destinations.ts';
import { INVALID_DESTINATION_ID, resolveTarget } from '../destinations/target.ts';
import { SAME_NETWORK_MESSAGE, TRON_BATCH_MESSAGE } from '../payments/calldata/batch.ts';

/**
 * `POST /v2/secure-payments` over HTTP on the real app: which networks one link may span, and
 * which destinations its requests may pay (a client ID's bound one, or the account's active
 * ones), with the exact statuses and messages of a refusal.
 */

const OPTIMISM_CHAIN_ID = 10;
const OPTIMISM_USDC = '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85';

setupSecurePaymentsApp();

describe('POST /v2/secure-payments: networks', () => {
  let base: DestinationRow;
  let tron: DestinationRow;
  let optimism: DestinationRow;
  beforeAll(async () => {
    base = await destination(shop);
    tron = await destination(shop, {
      walletAddress: TRON_WALLET,
      chainId: TRON_CHAIN_ID,
      tokenAddress: TRON_USDT,
    });
    optimism = await destination(shop, {
      chainId: OPTIMISM_CHAIN_ID,
      tokenAddress: OPTIMISM_USDC,
    });
  });

  it.each([
    ['two Tron requests', () => [tron, tron]],
    ['a base request then a Tron one', () => [base, tron]],
    ['a Tron request then a base one', () => [tron, base]],
  ])('refuses several requests with a Tron destination: %s', async (_case, pick) => {
    await expectRefused(
      apiKey(shop),
      { requests: pick().map((d) => ({ destinationId: d.destinationId, amount: '1' })) },
      400,
      badRequest(TRON_BATCH_MESSAGE, 'tron_batch_not_supported'),
    );
  });

  it('refuses requests on two EVM networks', async () => {
    await expectRefused(
      apiKey(shop),
      {
        requests: [
          { destinationId: base.destinationId, amount: '1' },
          { destinationId: base.destinationId, amount: '2' },
          { destinationId: optimism.destinationId, amount: '3' },
        ],
      },
      400,
      badRequest(SAME_NETWORK_MESSAGE, 'mixed_networks'),
    );
  });
});

describe('POST /v2/secure-payments: destinations', () => {
  describe('with a client ID bound to a destination', () => {
    let bound: Tenant;
    let boundDestination: DestinationRow;
    let other: DestinationRow;
    beforeAll(async () => {
      bound = await createTenant(t.db, 'Bound shop');
      boundDestination = await destination(bound);
      other = await destination(bound);
      await bindDestination(
        t.db,
        t.clock,
        bound.accountId,
        bound.backendClientId,
        boundDestination,
      );
    });

    it('pays the bound destination for items without destinationId or with the bound one', async () => {
      const res = await create(backend(bound), {
        requests: [
          { amount: '1' },
          { destinationId: boundDestination.destinationId, amount: '2' },
          { amount: '3' },
        ],
      });
      expect(res.statusCode, res.body).toBe(201);
      const rows = await requestRows(res.json().requestIds);
      expect(rows.map((r) => [r.payee, r.destinationId, r.expectedAmount])).toEqual([
        [boundDestination.walletAddress, boundDestination.id, 1_000_000n],
        [boundDestination.walletAddress, boundDestination.id, 2_000_000n],
        [boundDestination.walletAddress, boundDestination.id, 3_000_000n],
      ]);
    });

    it('takes the bound destination written in another case as the same destination', async () => {
      const res = await create(backend(bound), {
        requests: [{ destinationId: boundDestination.destinationId.toLowerCase(), amount: '1' }],
      });
      expect(res.statusCode, res.body).toBe(201);
    });

    it('pays another active destination of the account named on a line (a batch of several payees)', async () => {
      // The reference refuses that only for orchestrator-linked client IDs (orchestrated.test.ts).
      const res = await create(backend(bound), {
        requests: [{ amount: '1' }, { destinationId: other.destinationId, amount: '2' }],
      });
      expect(res.statusCode, res.body).toBe(201);
      const rows = await requestRows(res.json().requestIds);
      expect(rows.map((r) => [r.payee, r.destinationId, r.expectedAmount])).toEqual([
        [boundDestination.walletAddress, boundDestination.id, 1_000_000n],
        [other.walletAddress, other.id, 2_000_000n],
      ]);
    });

    it('answers 400 for a line naming a destination that is not one of the account’s', async () => {
      const elsewhere = await destination(shop);
      await expectRefused(
        backend(bound),
        { requests: [{ amount: '1' }, { destinationId: elsewhere.destinationId, amount: '1' }] },
        400,
        badRequest(
          `No active payee destination ${elsewhere.destinationId} in this account`,
          'unknown_destination',
        ),
      );
    });

    it('answers 400 for a malformed destinationId', async () => {
      await expectRefused(
        backend(bound),
        { requests: [{ destinationId: 'not-a-destination', amount: '1' }] },
        400,
        badRequest(INVALID_DESTINATION_ID, 'invalid_destination_id'),
      );
    });

    it('does not lend the binding to the account’s API key', async () => {
      await expectRefused(
        apiKey(bound),
        { requests: [{ amount: '1' }] },
        400,
        validationFailed([{ field: 'requests[0].destinationId' }]),
      );
    });

    it('answers 400 once the bound destination is inactive', async () => {
      const lapsed = await createTenant(t.db, 'Lapsed shop');
      const row = await destination(lapsed);
      await bindDestination(t.db, t.clock, lapsed.accountId, lapsed.backendClientId, row);
      await deactivateDestination(t.db, t.clock, row);
      await expectRefused(
        backend(lapsed),
        { requests: [{ amount: '1' }] },
        400,
        badRequest(
          'The payee destination bound to this client ID is inactive',
          'destination_inactive',
        ),
      );
    });
  });

  describe('without a bound destination', () => {
    it('answers 400 Validation failed for an item without destinationId', async () => {
      const dest = await destination(shop);
      for (const headers of [apiKey(shop), backend(shop)]) {
        await expectRefused(
          headers,
          { requests: [{ destinationId: dest.destinationId, amount: '1' }, { amount: '1' }] },
          400,
          validationFailed([
            {
              field: 'requests[1].destinationId',
              message:
                'is required: send destinationId, or payee and paymentCurrency to pick the account’s destination for them',
            },
          ]),
        );
      }
    });

    it('lets an unbound backend client ID name a destination inline, as 0.31.0 allows', async () => {
      // 0.13.0 answered 403 here; 0.31.0 lists no 403 for this operation, and the reference's
      // release notes let client IDs without a bound destination pass destinationId inline.
      const dest = await destination(shop);
      const res = await create(backend(shop), {
        requests: [{ destinationId: dest.destinationId, amount: '4' }],
      });
      expect(res.statusCode, res.body).toBe(201);
      const [row] = await requestRows(res.json().requestIds);
      expect(row).toMatchObject({ destinationId: dest.id, payee: dest.walletAddress });
      // Only the account's own destinations: another account's is unknown here.
      const theirs = await destination(rival);
      await expectRefused(
        backend(shop),
        { requests: [{ destinationId: theirs.destinationId, amount: '4' }] },
        400,
        badRequest(
          `No active payee destination ${theirs.destinationId} in this account`,
          'unknown_destination',
        ),
      );
    });

    it.each([
      ['plain text', () => 'not-a-destination'],
      ['a wrong checksum', (d: DestinationRow) => d.destinationId.replace(/#\w{8}/, '#00000000')],
      [
        'a wallet that is no address',
        (d: DestinationRow) => `0x1234@${d.destinationId.split('@')[1]}`,
      ],
      ['no token', (d: DestinationRow) => d.destinationId.split(':0x')[0] ?? ''],
    ])('answers 400 Invalid destination ID format for %s', async (_case, malform) => {
      const dest = await destination(shop);
      await expectRefused(
        apiKey(shop),
        { requests: [{ destinationId: malform(dest), amount: '1' }] },
        400,
        badRequest(INVALID_DESTINATION_ID, 'invalid_destination_id'),
      );
    });

    it('answers 400 for a well-formed destination never registered', async () => {
      const id = resolveTarget(t.chains, {
        walletAddress: wallet(5000),
        chainId: BASE_CHAIN_ID,
        tokenAddress: BASE_USDC,
      }).id.value;
      await expectRefused(
        apiKey(shop),
        { requests: [{ destinationId: id, amount: '1' }] },
        400,
        badRequest(`No active payee destination ${id} in this account`, 'unknown_destination'),
      );
    });

    it('answers 400 for an inactive destination', async () => {
      const dest = await destination(shop);
      await deactivateDestination(t.db, t.clock, dest);
      await expectRefused(
        apiKey(shop),
        { requests: [{ destinationId: dest.destinationId, amount: '1' }] },
        400,
        badRequest(
          `No active payee destination ${dest.destinationId} in this account`,
          'unknown_destination',
        ),
      );
    });

    it('writes nothing when one destination of a batch is inactive, and names that one', async () => {
      const first = await destination(shop);
      const second = await destination(shop, { walletAddress: wallet(5101) });
      await deactivateDestination(t.db, t.clock, second);
      await expectRefused(
        apiKey(shop),
        {
          requests: [
            { destinationId: first.destinationId, amount: '1' },
            { destinationId: second.destinationId, amount: '2' },
          ],
        },
        400,
        badRequest(
          `No active payee destination ${second.destinationId} in this account`,
          'unknown_destination',
        ),
      );
    });

    it('pays each item its own destination when a batch names one twice', async () => {
      const first = await destination(shop, { walletAddress: wallet(5102) });
      const second = await destination(shop, { walletAddress: wallet(5103) });
      const res = await create(apiKey(shop), {
        requests: [
          { destinationId: first.destinationId, amount: '1' },
          { destinationId: second.destinationId, amount: '2' },
          { destinationId: first.destinationId, amount: '3' },
        ],
      });
      expect(res.statusCode, res.body).toBe(201);
      const rows = await requestRows(res.json().requestIds);
      expect(rows.map((r) => [r.destinationId, r.payee, r.expectedAmount])).toEqual([
        [first.id, first.walletAddress, 1_000_000n],
        [second.id, second.walletAddress, 2_000_000n],
        [first.id, first.walletAddress, 3_000_000n],
      ]);
    });

    it('answers 400 for another account’s destination', async () => {
      const theirs = await destination(rival);
      await expectRefused(
        apiKey(shop),
        { requests: [{ destinationId: theirs.destinationId, amount: '1' }] },
        400,
        badRequest(
          `No active payee destination ${theirs.destinationId} in this account`,
          'unknown_destination',
        ),
      );
    });
  });
});

describe('POST /v2/secure-payments: which refusal is named', () => {
  // The destinations are checked by the write, but a refusal names a missing one first, as when
  // each item's destination was looked up before the item's other checks and the next item.
  const unknown = (id: string) =>
    badRequest(`No active payee destination ${id} in this account`, 'unknown_destination');
  let gone: DestinationRow;
  let kept: DestinationRow;
  let optimism: DestinationRow;
  beforeAll(async () => {
    gone = await destination(shop, { walletAddress: wallet(5201) });
    kept = await destination(shop, { walletAddress: wallet(5202) });
    optimism = await destination(shop, {
      walletAddress: wallet(5203),
      chainId: OPTIMISM_CHAIN_ID,
      tokenAddress: OPTIMISM_USDC,
    });
    await deactivateDestination(t.db, t.clock, gone);
  });

  it.each([
    [
      'a bad amount on a later item',
      () => [{ destinationId: kept.destinationId, amount: '1.1234567' }],
    ],
    [
      'a later item on another network',
      () => [{ destinationId: optimism.destinationId, amount: '1' }],
    ],
  ])('names an inactive destination before %s', async (_case, later) => {
    await expectRefused(
      apiKey(shop),
      { requests: [{ destinationId: gone.destinationId, amount: '1' }, ...later()] },
      400,
      unknown(gone.destinationId),
    );
  });

  it('names an inactive destination before its own fiat the network cannot convert', async () => {
    await expectRefused(
      apiKey(shop),
      { requests: [{ destinationId: gone.destinationId, amount: '1', invoiceCurrency: 'EUR' }] },
      400,
      unknown(gone.destinationId),
    );
  });

  it('names an earlier item’s refusal before a later item’s inactive destination', async () => {
    await expectRefused(
      apiKey(shop),
      {
        requests: [
          { destinationId: kept.destinationId, amount: '1', invoiceCurrency: 'EUR' },
          { destinationId: gone.destinationId, amount: '1' },
        ],
      },
      400,
      badRequest(
        'No conversion route from EUR to USDC-base on base',
        'conversion_route_unavailable',
      ),
    );
    await expectRefused(
      apiKey(shop),
      {
        requests: [
          { destinationId: 'not-a-destination', amount: '1' },
          { destinationId: gone.destinationId, amount: '1' },
        ],
      },
      400,
      badRequest(INVALID_DESTINATION_ID, 'invalid_destination_id'),
    );
  });
});
