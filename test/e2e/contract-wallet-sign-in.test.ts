import {
  type Address,
  custom,
  getAddress,
  type Hex,
  hashMessage,
  serializeErc6492Signature,
  serializeSignature,
} from 'viem';
import { privateKeyToAddress, sign } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { createTestApp, type TestApp } from '../app.ts';
import {
  counterfactualAddress,
  creationCode,
  FACTORY_RUNTIME,
  walletRuntime,
} from '../contract-wallet.ts';
import { challenge as signInChallenge, verify as signInVerify } from '../sign-in.ts';

/**
 * Smart-contract wallets sign in through mainnet: ERC-1271 for a deployed wallet, ERC-6492 for
 * one its factory has not deployed yet. A local chain with chain id 1 stands in for mainnet.
 */

const OWNER_KEY = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';
const STRANGER_KEY = '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e';
const DEPLOYED = getAddress('0x00000000000000000000000000000000c0ffee01');
const FACTORY = getAddress('0x00000000000000000000000000000000fac70201');

let chain: LocalChain;
let t: TestApp;
let owner: Address;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 1, walletCount: 1 });
  t = await createTestApp({
    env: { AUTH_URL: 'https://auth.payreq.test' },
    transports: { mainnet: custom(chain.provider, { retryCount: 0 }) },
  });
  owner = privateKeyToAddress(OWNER_KEY);
  await setCode(DEPLOYED, walletRuntime(owner));
  await setCode(FACTORY, FACTORY_RUNTIME);
});
afterAll(async () => {
  await t?.close();
  await chain?.close();
});

function setCode(address: Address, code: Hex) {
  return chain.provider.request({ method: 'hardhat_setCode', params: [address, code] });
}

const challenge = (address: string) => signInChallenge(t, address);
const verify = (body: Parameters<typeof signInVerify>[1]) => signInVerify(t, body);

/** What the wallet's owner key produces: a raw signature over the EIP-191 hash of the message. */
async function ownerSignature(message: string, key: Hex): Promise<Hex> {
  return serializeSignature(await sign({ hash: hashMessage(message), privateKey: key }));
}

describe('contract-wallet sign-in', () => {
  it('signs in a deployed ERC-1271 wallet its owner signed for', async () => {
    const c = await challenge(DEPLOYED);
    const res = await verify({ ...c, signature: await ownerSignature(c.message, OWNER_KEY) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ address: DEPLOYED, walletType: 'evm' });
    expect(res.headers['set-cookie']).toMatch(/^session_token=/);
  });

  it('refuses the wallet when another key signed, and the owner signing as itself', async () => {
    const stranger = await challenge(DEPLOYED);
    const refused = await verify({
      ...stranger,
      signature: await ownerSignature(stranger.message, STRANGER_KEY),
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('sign_in_refused');

    // The owner's signature proves the owner, not the wallet, for anything but the wallet itself.
    const asOwner = await challenge(owner);
    const ownerSigned = await verify({
      ...asOwner,
      signature: await ownerSignature(asOwner.message, OWNER_KEY),
    });
    expect(ownerSigned.statusCode).toBe(200);
    expect(ownerSigned.json().address).toBe(owner);
  });

  it('signs in a wallet not yet deployed through its ERC-6492 factory, and nothing else', async () => {
    const creation = creationCode(walletRuntime(owner));
    const wallet = counterfactualAddress(FACTORY, creation);
    expect(await chain.client.getCode({ address: wallet })).toBeUndefined();

    const c = await challenge(wallet);
    const wrapped = (key: Hex) =>
      ownerSignature(c.message, key).then((signature) =>
        serializeErc6492Signature({ address: FACTORY, data: creation, signature }),
      );
    const stranger = await verify({ ...c, signature: await wrapped(STRANGER_KEY) });
    expect(stranger.statusCode).toBe(401);

    const res = await verify({ ...c, signature: await wrapped(OWNER_KEY) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ address: wallet, walletType: 'evm' });
    // Verification simulated the deployment; it did not send one.
    expect(await chain.client.getCode({ address: wallet })).toBeUndefined();
  });
});

describe('contract-wallet sign-in without a mainnet RPC', () => {
  it('refuses a contract wallet, since nothing can ask it', async () => {
    const offline = await createTestApp({ env: { AUTH_URL: 'https://auth.payreq.test' } });
    try {
      const c = await signInChallenge(offline, DEPLOYED);
      const res = await signInVerify(offline, {
        ...c,
        signature: await ownerSignature(c.message, OWNER_KEY),
      });
      expect(res.statusCode).toBe(401);
    } finally {
      await offline.close();
    }
  });
});
