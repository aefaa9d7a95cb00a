import type { PrivateKeyAccount } from 'viem/accounts';
import { expect } from 'vitest';
import type { TestApp } from './app.ts';

/**
 * Adds `owner`'s destination the signed way, as a payee's wallet does: the EIP-712 signing data
 * from `/v2/payee-destination/signing-data`, the wallet's own signature, then
 * `POST /v2/payee-destination`, each with `headers` (the account's credential). Answers the 201's
 * body.
 */
export async function addSignedDestination(
  t: TestApp,
  headers: Record<string, string>,
  owner: PrivateKeyAccount,
  target: { readonly tokenAddress: string; readonly chainId: number },
) {
  const search = new URLSearchParams({
    walletAddress: owner.address,
    action: 'add',
    tokenAddress: target.tokenAddress,
    chainId: String(target.chainId),
  });
  const data = await t.app.inject({
    method: 'GET',
    url: `/v2/payee-destination/signing-data?${search}`,
    headers,
  });
  expect(data.statusCode, data.body).toBe(200);
  const { typedData, nonce } = data.json();
  const signature = await owner.signTypedData({
    ...typedData,
    message: {
      ...typedData.message,
      chainId: BigInt(typedData.message.chainId),
      expiresAt: BigInt(typedData.message.expiresAt),
    },
  });
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/payee-destination',
    headers,
    payload: { signature, nonce },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
