import type { LocalAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmToTron } from '../../src/chains/tron-address.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { TronTransaction } from '../../src/payments/transactions.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf } from '../chain.ts';
import type { FakeTronNode } from '../fake-tron-node.ts';
import { createTenant, SHOP_ORIGIN, type Tenant } from '../fixtures.ts';
import { signTronCall, startTronWorld, TRON_CHAIN_ID, TRON_USDT } from '../tron-world.ts';

/**
 * A Tron link's allowlist holds at the relay too: a wallet off the list gets no calldata from
 * /pay, and the payment it builds and signs itself is refused by
 * `POST /{token}/tron/broadcast` (403 `payer_not_allowed`) and never reaches the node, while
 * the listed wallet's Tron address (compared as written) gets its calldata.
 */

const PAYEE = 1;
const PAYER = 2;
const OTHER = 3;

let evm: LocalChain;
let node: FakeTronNode;
let t: TestApp;
let tenant: Tenant;
let destinationId: string;

beforeAll(async () => {
  evm = await startLocalChain({ chainId: 31337, walletCount: 4 });
  node = await startTronWorld(evm, [PAYER, OTHER]);
  t = await createTestApp({ env: { RPC_URL_TRON: node.url } });
  tenant = await createTenant(t.db);
  const target = resolveTarget(t.chains, {
    walletAddress: evmToTron(accountOf(evm, PAYEE).address),
    chainId: TRON_CHAIN_ID,
    tokenAddress: TRON_USDT,
  });
  destinationId = (await activateDestination(t.db, t.clock, tenant.accountId, target))
    .destinationId;
}, 120_000);
afterAll(async () => {
  await t?.close();
  await node?.close();
  await evm?.close();
});

const broadcastsSeen = () =>
  node.grid.requests.filter((r) => r.path === '/wallet/broadcasttransaction').length;

describe('a Tron link with an allowlist', () => {
  it('serves the listed wallet and relays nothing a wallet off the list signed', async () => {
    const listed = evmToTron(accountOf(evm, PAYER).address);
    const stranger = accountOf(evm, OTHER) as LocalAccount;
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: { 'x-api-key': tenant.apiKey },
      payload: {
        requests: [{ destinationId, amount: '2' }],
        accessPolicy: { allowedPayerAddresses: [listed] },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const token = created.json().token as string;
    const pay = (wallet: string) =>
      t.app.inject({
        method: 'GET',
        url: `/v2/secure-payments/${token}/pay?wallet=${wallet}`,
        headers: { 'x-api-key': tenant.apiKey },
      });
    const served = await pay(listed);
    expect(served.statusCode, served.body).toBe(200);
    const refused = await pay(evmToTron(stranger.address));
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('payer_not_allowed');

    // The stranger signs the link's approval as its own, and asks the page's relay to send it.
    const [approve] = served.json().transactions as [TronTransaction];
    const signed = await signTronCall(node.url, approve, stranger);
    const seen = broadcastsSeen();
    const relayed = await t.app.inject({
      method: 'POST',
      url: `/v2/secure-payments/${token}/tron/broadcast`,
      headers: { 'x-client-id': tenant.browserClientId, origin: SHOP_ORIGIN },
      payload: { signedTransaction: signed },
    });
    expect(relayed.statusCode, relayed.body).toBe(403);
    expect(relayed.json().code).toBe('payer_not_allowed');
    expect(broadcastsSeen()).toBe(seen);
  });
});
