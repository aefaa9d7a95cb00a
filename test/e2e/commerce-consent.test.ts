import { type Account, type Hex, maxUint256, parseEventLogs, zeroAddress } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { accountOf } from '../chain.ts';
import {
  type AuthParams,
  approve,
  authParams,
  balanceOf,
  type ChargeParams,
  chainNow,
  chargeParams,
  customError,
  wrapperAbi,
  write,
} from '../commerce-contracts.ts';

/**
 * Finding F1, "theft of an approval": a payer's standing approval of the wrapper must not let
 * anyone else hold or take its funds. Our wrapper takes an authorization or a charge only from
 * its payer, or on terms the payer pre-approved on the wrapper, every field of them, once
 * (contracts/commerce/CommerceTerms.sol).
 */

let chain: LocalChain;
let payer: Account;
let merchant: Account;
let operator: Account;
let attacker: Account;
let snapshot: Hex;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 8453 });
  [payer, merchant, operator, attacker] = [1, 2, 3, 4].map((index) => accountOf(chain, index)) as [
    Account,
    Account,
    Account,
    Account,
  ];
});
afterAll(async () => {
  await chain.close();
});
beforeEach(async () => {
  snapshot = await chain.snapshot();
  // The standing approval an attacker would spend: the payer approved the wrapper for anything.
  await approve(
    chain,
    payer,
    chain.addresses.usdc,
    chain.addresses.commerceEscrowWrapper,
    maxUint256,
  );
});
afterEach(async () => {
  await chain.revert(snapshot);
});

const wrapper = () => chain.addresses.commerceEscrowWrapper;
const usdc = () => chain.addresses.usdc;

async function terms(reference: Hex, parties: { merchant: Account; operator: Account }) {
  return authParams(chain, {
    paymentReference: reference,
    payer: payer.address,
    merchant: parties.merchant.address,
    operator: parties.operator.address,
    token: usdc(),
    amount: 50_000_000n,
    now: await chainNow(chain),
  });
}

const authorize = (from: Account, params: AuthParams) =>
  write(chain, from, {
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'authorizePayment',
    args: [params],
  });

const charge = (from: Account, params: ChargeParams) =>
  write(chain, from, {
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'chargePayment',
    args: [params],
  });

const preApproveAuthorization = (from: Account, params: AuthParams) =>
  write(chain, from, {
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'preApproveAuthorization',
    args: [params],
  });

const preApproveCharge = (from: Account, params: ChargeParams) =>
  write(chain, from, {
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'preApproveCharge',
    args: [params],
  });

const authorizationTermsHash = (params: AuthParams) =>
  chain.client.readContract({
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'authorizationTermsHash',
    args: [params],
  });

const chargeTermsHash = (params: ChargeParams) =>
  chain.client.readContract({
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'chargeTermsHash',
    args: [params],
  });

const preApproved = (hash: Hex) =>
  chain.client.readContract({
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'preApprovedTerms',
    args: [hash],
  });

const escrowBalance = () => balanceOf(chain, usdc(), chain.addresses.authCaptureEscrow);

describe('a payer’s standing approval of the wrapper', () => {
  it('is refused to an attacker who authorizes or charges to itself', async () => {
    const before = await balanceOf(chain, usdc(), payer.address);
    const stolen = await terms('0x00000000000f1001', { merchant: attacker, operator: attacker });
    const charged = chargeParams(stolen, { feeBps: 0, feeReceiver: zeroAddress });
    const [authHash, chargeHash] = [
      await authorizationTermsHash(stolen),
      await chargeTermsHash(charged),
    ];
    await expect(authorize(attacker, stolen)).rejects.toThrow(
      customError('TermsNotPreApproved', attacker.address, payer.address, authHash),
    );
    await expect(charge(attacker, charged)).rejects.toThrow(
      customError('TermsNotPreApproved', attacker.address, payer.address, chargeHash),
    );
    // Nor may the attacker pre-approve in the payer's name.
    await expect(preApproveAuthorization(attacker, stolen)).rejects.toThrow(
      customError('NotPayer', attacker.address, payer.address),
    );
    expect(await balanceOf(chain, usdc(), payer.address)).toBe(before);
    expect(await escrowBalance()).toBe(0n);
  });

  it('serves the payer’s own authorization, sent by the payer', async () => {
    await authorize(payer, await terms('0x00000000000f1002', { merchant, operator }));
    expect(await escrowBalance()).toBe(50_000_000n);
  });

  it('serves the operator’s authorization on terms the payer pre-approved, once', async () => {
    const params = await terms('0x00000000000f1003', { merchant, operator });
    const hash = await authorizationTermsHash(params);
    // Before the pre-approval, the operator is refused as anyone else is.
    await expect(authorize(operator, params)).rejects.toThrow('TermsNotPreApproved');
    const receipt = await preApproveAuthorization(payer, params);
    expect(
      parseEventLogs({
        abi: wrapperAbi,
        logs: receipt.logs,
        eventName: 'PaymentTermsPreApproved',
      }).map((log) => log.args),
    ).toEqual([
      { paymentReference: params.paymentReference, payer: payer.address, termsHash: hash },
    ]);
    expect(await preApproved(hash)).toBe(true);

    await authorize(operator, params);
    expect(await escrowBalance()).toBe(50_000_000n);
    expect(await preApproved(hash)).toBe(false);
    await expect(authorize(operator, params)).rejects.toThrow(
      customError('TermsNotPreApproved', operator.address, payer.address, hash),
    );
  });

  it('takes a pre-approval for its exact terms only: every field changed is refused', async () => {
    const params = await terms('0x00000000000f1004', { merchant, operator });
    await preApproveAuthorization(payer, params);
    // Sent by the operator, a party to the terms but not their payer.
    const other = attacker.address;
    const changed: Partial<AuthParams>[] = [
      { paymentReference: '0x00000000000f1005' },
      { payer: other },
      { merchant: other },
      { operator: other },
      { token: chain.addresses.dai },
      { amount: params.amount - 1n },
      { maxAmount: params.maxAmount + 1n },
      { preApprovalExpiry: params.preApprovalExpiry + 1n },
      { authorizationExpiry: params.authorizationExpiry + 1n },
      { refundExpiry: params.refundExpiry + 1n },
      { tokenCollector: other },
      { collectorData: '0x01' },
    ];
    expect(changed.flatMap(Object.keys).sort()).toEqual(Object.keys(params).sort());
    for (const change of changed) {
      await expect(
        authorize(operator, { ...params, ...change }),
        Object.keys(change).join(),
      ).rejects.toThrow('TermsNotPreApproved');
    }
    // An authorization's pre-approval is no charge's, even at no fee.
    await expect(
      charge(attacker, chargeParams(params, { feeBps: 0, feeReceiver: zeroAddress })),
    ).rejects.toThrow('TermsNotPreApproved');
    expect(await escrowBalance()).toBe(0n);
    // The exact terms still pass, from anyone.
    await authorize(attacker, params);
    expect(await escrowBalance()).toBe(50_000_000n);
  });

  it('serves a charge on terms the payer pre-approved, fee included, once', async () => {
    const params = chargeParams(await terms('0x00000000000f1006', { merchant, operator }), {
      feeBps: 100,
      feeReceiver: operator.address,
    });
    await preApproveCharge(payer, params);
    await expect(charge(operator, { ...params, feeBps: 200 })).rejects.toThrow(
      'TermsNotPreApproved',
    );
    await expect(charge(operator, { ...params, feeReceiver: attacker.address })).rejects.toThrow(
      'TermsNotPreApproved',
    );
    const merchantBefore = await balanceOf(chain, usdc(), merchant.address);
    await charge(operator, params);
    expect(await balanceOf(chain, usdc(), merchant.address)).toBe(merchantBefore + 49_500_000n);
    expect(await preApproved(await chargeTermsHash(params))).toBe(false);
  });
});
