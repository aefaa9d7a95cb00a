import { describe, expect, it } from 'vitest';
import {
  BASE,
  change,
  create,
  created,
  DAI_BASE,
  evmSession,
  getOwn,
  setupDestinationsApp,
  TRON,
  tronSession,
  USDC_BASE,
  USDT_TRON,
  validationErrors,
  writesNothing,
} from '../../test/payee-destinations-v1.ts';

/**
 * `walletAddress` in the /v1/payee-destination bodies (Auth API 0.14.0): the session's own
 * wallet, in any case, is the same as sending none; another wallet is refused with nothing
 * written, since a session proves only its own wallet.
 */

setupDestinationsApp();

const REFUSED = {
  statusCode: 403,
  error: 'Forbidden',
  message:
    'walletAddress is not the signed-in wallet; sign in with that wallet to set its destination',
  code: 'session_wallet_mismatch',
};

/** Every spelling of an EVM address that names it: checksummed, lower and upper case. */
function spellings(address: string): string[] {
  return [address, address.toLowerCase(), `0x${address.slice(2).toUpperCase()}`];
}

describe('walletAddress in POST and PUT /v1/payee-destination', () => {
  it('takes the session’s own wallet in any case, as if absent', async () => {
    const payee = await evmSession();
    const plain = await created(payee);
    for (const walletAddress of spellings(payee.address)) {
      const again = await created(payee, { walletAddress, tokenAddress: USDC_BASE, chainId: BASE });
      expect(again, walletAddress).toEqual(plain);
    }
    for (const [i, walletAddress] of spellings(payee.address).entries()) {
      const tokenAddress = i % 2 === 0 ? DAI_BASE : USDC_BASE;
      const res = await change(payee, { walletAddress, tokenAddress, chainId: BASE });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ walletAddress: payee.address, tokenAddress });
    }
  });

  it('takes a Tron session’s own wallet', async () => {
    const payee = await tronSession();
    const body = await created(payee, {
      walletAddress: payee.address,
      tokenAddress: USDT_TRON,
      chainId: TRON,
    });
    expect(body).toMatchObject({ walletAddress: payee.address, chainId: TRON });
  });

  it('refuses another wallet with 403, writing nothing, on create and on change', async () => {
    const payee = await evmSession();
    const stranger = await evmSession();
    const before = await created(payee);
    for (const walletAddress of spellings(stranger.address)) {
      const body = { walletAddress, tokenAddress: DAI_BASE, chainId: BASE };
      for (const send of [create, change]) {
        const res = await writesNothing(() => send(payee, body));
        expect(res.statusCode, res.body).toBe(403);
        expect(res.json()).toEqual(REFUSED);
      }
    }
    // A Tron session naming an EVM wallet, and the other way round.
    const tron = await tronSession();
    const res = await writesNothing(() =>
      create(tron, { walletAddress: payee.address, tokenAddress: USDT_TRON, chainId: TRON }),
    );
    expect(res.json()).toEqual(REFUSED);
    expect((await getOwn(payee)).json()).toEqual(before);
    expect((await getOwn(stranger)).json()).toBeNull();
  });

  it.each([
    [
      'malformed',
      '0x1234',
      'must be an EVM address (0x followed by 40 hex digits) or a Tron address (T…)',
    ],
    [
      'wrongly checksummed',
      '0x833589FCD6eDb6E08f4c7C32D4f71b54bdA02913',
      'has an invalid EIP-55 checksum: write the address in all lower case or with its correct checksum',
    ],
  ])(
    'refuses a %s walletAddress with 400, writing nothing',
    async (_case, walletAddress, message) => {
      const payee = await evmSession();
      await created(payee);
      for (const send of [create, change]) {
        const res = await writesNothing(() =>
          send(payee, { walletAddress, tokenAddress: DAI_BASE, chainId: BASE }),
        );
        expect(validationErrors(res)).toEqual([{ field: 'walletAddress', message }]);
      }
    },
  );
});
