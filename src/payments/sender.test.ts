import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountOf, sendAll } from '../../test/chain.ts';
import { type ChainBehindProxy, chainBehindFaultyRpc } from '../../test/faulty-rpc.ts';
import { transactionStatus } from './sender.ts';

/**
 * Where a sent transaction stands, read through a proxy that garbles the node's answers: a
 * receipt that holds no status is the node failing, not the transaction. Read as "reverted", a
 * garbled answer would fail a commerce action or a recurring payment that went through.
 */

let world: ChainBehindProxy;
let hash: `0x${string}`;

beforeAll(async () => {
  world = await chainBehindFaultyRpc();
  const { chain } = world;
  const [sent] = await sendAll(chain, accountOf(chain, 2), [
    { to: accountOf(chain, 1).address, data: '0x', value: '0x1', chainId: chain.chainId },
  ]);
  if (!sent) throw new Error('nothing sent');
  hash = sent;
});

afterAll(() => world.close());

describe('transactionStatus', () => {
  it('says a mined transaction succeeded while the node answers', async () => {
    world.proxy.set('pass');
    expect(await transactionStatus(world.client, hash)).toBe('success');
  });

  it('fails, rather than say reverted, when the node answers a receipt of the wrong shape', async () => {
    world.proxy.set('wrong_result');
    const before = world.proxy.answered.wrong_result;
    await expect(transactionStatus(world.client, hash)).rejects.toThrow();
    expect(world.proxy.answered.wrong_result).toBeGreaterThan(before);
  });
});
