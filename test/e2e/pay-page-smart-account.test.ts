import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screen, sends } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import { deployBatchAccount } from '../smart-account.ts';

/**
 * A smart-account wallet on the hosted page, in a real Chromium on the sandbox chain: the wallet
 * shares its smart account (a BatchAccount running EIP-5792 batches as one transaction) and the
 * owner EOA that holds the permit token TST. The account holds nothing, so the page asks `/pay`
 * with `eoaWallet`, has the owner sign the permit, and sends permit, `transferFrom` and payment
 * in one `wallet_sendCalls`; a relayer sends the account's one transaction, the owner none.
 */

let rig: PayPageRig;

beforeAll(async () => {
  rig = await startPayPageRig({ network: 'sandbox' });
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

const PAYEE = 1;
const OWNER = 3;
const RELAYER = 4;

describe('a smart account paying with its owner’s permit token', () => {
  it('signs the permit and pays in one atomic wallet_sendCalls; the owner sends nothing', async () => {
    const chain = rig.local.chain;
    const owner = rig.wallet(OWNER);
    const account = await deployBatchAccount(chain, owner.address);
    const tst = getAddress(chain.addresses.tst);
    const token = await rig.link([
      { currency: 'TST', amount: '12.345678901234567891', payee: PAYEE },
    ]);
    const payee = rig.wallet(PAYEE).address;
    const amount = 12_345_678_901_234_567_891n;
    const before = {
      payee: await rig.balance('TST', payee),
      owner: await rig.balance('TST', owner.address),
      ownerEth: await rig.balance('ETH', owner.address),
      ownerNonce: await chain.client.getTransactionCount({ address: owner.address }),
    };
    const { page, wallets, context } = await rig.open(token, [
      {
        name: 'Smart Wallet',
        rdns: 'test.payreq.smart',
        account: owner,
        atomic: 'supported',
        smartAccount: { address: account, relayer: rig.wallet(RELAYER), chain },
      },
    ]);
    const [wallet] = wallets;
    await screen(page, 'pending');
    await page.getByRole('button', { name: 'Pay with Smart Wallet' }).click();
    await screen(page, 'completed');

    expect(wallet?.signed).toHaveLength(1);
    expect(sends(wallet)).toBe(0);
    const sendCalls = wallet?.calls.filter((c) => c.method === 'wallet_sendCalls') ?? [];
    expect(sendCalls).toHaveLength(1);
    const [request] = (sendCalls[0]?.params ?? []) as [{ from: string; calls: { to: string }[] }?];
    expect(request?.from).toBe(account);
    // The permit first, on the token, then `/pay`'s calls (transferFrom, approval, payment).
    expect(request?.calls[0]?.to).toBe(tst);
    expect(request?.calls.length).toBeGreaterThanOrEqual(3);
    const [batch] = wallet?.batches ?? [];
    expect(batch?.status).toBe(200);
    expect(batch?.hashes).toHaveLength(1);

    expect(await rig.balance('TST', payee)).toBe(before.payee + amount);
    expect(await rig.balance('TST', owner.address)).toBe(before.owner - amount);
    expect(await rig.balance('TST', account)).toBe(0n);
    expect(await rig.balance('ETH', owner.address)).toBe(before.ownerEth);
    expect(await chain.client.getTransactionCount({ address: owner.address })).toBe(
      before.ownerNonce,
    );
    const paid = await rig.get(`/v2/secure-payments/${token}`);
    expect(paid.status).toBe(409);
    expect((paid.body.requestStatuses as { txHash: string }[])[0]?.txHash).toBe(batch?.hashes[0]);
    await context.close();
  });
});
