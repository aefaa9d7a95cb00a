import {
  type Account,
  type Address,
  type Hex,
  keccak256,
  parseEventLogs,
  parseUnits,
  type TransactionReceipt,
  zeroAddress,
} from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { erc20FeeProxyAbi } from '../../src/payments/abis.ts';
import { MAX_COMMERCE_AMOUNT, MAX_COMMERCE_EXPIRY } from '../../src/payments/commerce/abi.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { authCaptureEscrowArtifact } from '../../src/sandbox/commerce-escrow-artifacts.ts';
import { accountOf } from '../chain.ts';
import {
  type AuthParams,
  approve,
  authParams,
  balanceOf,
  chainNow,
  customError,
  wrapperAbi,
  write,
} from '../commerce-contracts.ts';

/**
 * The sandbox's commerce contracts driven from wallets, as a shop's operator and its buyer
 * would: authorize, capture (partly, with a fee), refund, void and reclaim, on a 6- and an
 * 18-decimal token, every balance exact to the base unit, every leg through ERC20FeeProxy with
 * the payment's reference; and each rule the escrow and the wrapper enforce.
 */

let chain: LocalChain;
let payer: Account;
let merchant: Account;
let operator: Account;
let feeReceiver: Account;
let snapshot: Hex;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 8453 });
  payer = accountOf(chain, 1);
  merchant = accountOf(chain, 2);
  operator = accountOf(chain, 3);
  feeReceiver = accountOf(chain, 4);
});
afterAll(async () => {
  await chain.close();
});
beforeEach(async () => {
  snapshot = await chain.snapshot();
});
afterEach(async () => {
  await chain.revert(snapshot);
});

const TOKENS = [
  { symbol: 'USDC', decimals: 6, pick: (c: LocalChain) => c.addresses.usdc },
  { symbol: 'DAI', decimals: 18, pick: (c: LocalChain) => c.addresses.dai },
] as const;

describe.each(TOKENS)('commerce payments in $symbol', ({ decimals, pick }) => {
  const units = (value: string) => parseUnits(value, decimals);
  const token = () => pick(chain);
  const wrapper = () => chain.addresses.commerceEscrowWrapper;
  const escrow = () => chain.addresses.authCaptureEscrow;

  /** Balances of the parties, the escrow and the wrapper. */
  async function balances() {
    const holders = {
      payer: payer.address,
      merchant: merchant.address,
      operator: operator.address,
      feeReceiver: feeReceiver.address,
      escrow: escrow(),
      wrapper: wrapper(),
    };
    const entries = await Promise.all(
      Object.entries(holders).map(async ([name, at]) => [
        name,
        await balanceOf(chain, token(), at),
      ]),
    );
    return Object.fromEntries(entries) as Record<keyof typeof holders, bigint>;
  }

  /** What each holder gained (or lost, negative) since `before`. */
  async function moved(before: Awaited<ReturnType<typeof balances>>) {
    const after = await balances();
    return Object.fromEntries(
      Object.entries(after).map(([name, value]) => [
        name,
        value - before[name as keyof typeof before],
      ]),
    );
  }

  async function authorize(
    reference: Hex,
    amount: string,
    expiries: Partial<Record<'preApproval' | 'authorization', bigint>> = {},
  ) {
    const params = authParams(chain, {
      paymentReference: reference,
      payer: payer.address,
      merchant: merchant.address,
      operator: operator.address,
      token: token(),
      amount: units(amount),
      now: await chainNow(chain),
      ...expiries,
    });
    await approve(chain, payer, token(), wrapper(), params.amount);
    return authorizeWith(payer, params);
  }

  const authorizeWith = (from: Account, params: AuthParams) =>
    write(chain, from, {
      address: wrapper(),
      abi: wrapperAbi,
      functionName: 'authorizePayment',
      args: [params],
    });

  const capture = (reference: Hex, amount: string, feeBps = 0, from = operator) =>
    write(chain, from, {
      address: wrapper(),
      abi: wrapperAbi,
      functionName: 'capturePayment',
      args: [reference, units(amount), feeBps, feeBps > 0 ? feeReceiver.address : zeroAddress],
    });

  const voidPayment = (reference: Hex) =>
    write(chain, operator, {
      address: wrapper(),
      abi: wrapperAbi,
      functionName: 'voidPayment',
      args: [reference],
    });

  async function refund(reference: Hex, amount: string) {
    await approve(chain, operator, token(), wrapper(), units(amount));
    return write(chain, operator, {
      address: wrapper(),
      abi: wrapperAbi,
      functionName: 'refundPayment',
      args: [reference, units(amount), chain.addresses.operatorRefundCollector, '0x'],
    });
  }

  const reclaim = (reference: Hex) =>
    write(chain, payer, {
      address: wrapper(),
      abi: wrapperAbi,
      functionName: 'reclaimPayment',
      args: [reference],
    });

  async function advance(seconds: number) {
    await chain.provider.request({ method: 'evm_increaseTime', params: [seconds] });
    await chain.provider.request({ method: 'evm_mine', params: [] });
  }

  /** The fee proxy's legs in a receipt: who was paid what, under which reference's hash. */
  function legs(receipt: TransactionReceipt) {
    return parseEventLogs({
      abi: erc20FeeProxyAbi,
      logs: receipt.logs,
      eventName: 'TransferWithReferenceAndFee',
    }).map((log) => ({ proxy: log.address, ...log.args }));
  }

  function leg(
    reference: Hex,
    to: Address,
    amount: string,
    fee = '0',
    feeAddress: Address = zeroAddress,
  ) {
    return {
      proxy: chain.addresses.erc20FeeProxy.toLowerCase(),
      tokenAddress: token(),
      to,
      amount: units(amount),
      paymentReference: keccak256(reference),
      feeAmount: units(fee),
      feeAddress,
    };
  }

  async function escrowState(reference: Hex) {
    return chain.client.readContract({
      address: wrapper(),
      abi: wrapperAbi,
      functionName: 'getPaymentState',
      args: [reference],
    });
  }

  it('authorizes 50, captures 30 with a 1 % fee and 20 more, then refunds 10', async () => {
    const reference = '0x0000000000000a01';
    const start = await balances();

    await authorize(reference, '50');
    expect(await moved(start)).toMatchObject({
      payer: -units('50'),
      escrow: units('50'),
      wrapper: 0n,
    });

    const first = await capture(reference, '30', 100);
    expect(await moved(start)).toMatchObject({
      payer: -units('50'),
      merchant: units('29.7'),
      feeReceiver: units('0.3'),
      escrow: units('20'),
      wrapper: 0n,
    });
    expect(legs(first)).toEqual([
      leg(reference, merchant.address, '29.7', '0.3', feeReceiver.address),
    ]);

    const second = await capture(reference, '20');
    expect(await moved(start)).toMatchObject({ merchant: units('49.7'), escrow: 0n, wrapper: 0n });
    expect(legs(second)).toEqual([leg(reference, merchant.address, '20')]);
    expect(await escrowState(reference)).toEqual([true, 0n, units('50')]);

    const refunded = await refund(reference, '10');
    expect(await moved(start)).toEqual({
      payer: -units('40'),
      merchant: units('49.7'),
      operator: -units('10'),
      feeReceiver: units('0.3'),
      escrow: 0n,
      wrapper: 0n,
    });
    expect(legs(refunded)).toEqual([leg(reference, payer.address, '10')]);
    expect(await escrowState(reference)).toEqual([true, 0n, units('40')]);
  });

  it('voids an authorization: the payer is back where it started, and a second void fails', async () => {
    const reference = '0x0000000000000b02';
    const start = await balances();
    await authorize(reference, '50');
    const voided = await voidPayment(reference);
    expect(await moved(start)).toEqual({
      payer: 0n,
      merchant: 0n,
      operator: 0n,
      feeReceiver: 0n,
      escrow: 0n,
      wrapper: 0n,
    });
    expect(legs(voided)).toEqual([leg(reference, payer.address, '50')]);
    await expect(voidPayment(reference)).rejects.toThrow('ZeroAuthorization');
  });

  it('lets the payer reclaim once the authorization expires, and no capture after', async () => {
    const reference = '0x0000000000000c03';
    const start = await balances();
    await authorize(reference, '50', { preApproval: 600n, authorization: 3_600n });
    await capture(reference, '5');
    await expect(reclaim(reference)).rejects.toThrow('BeforeAuthorizationExpiry');

    await advance(3_600);
    await expect(capture(reference, '5')).rejects.toThrow('AfterAuthorizationExpiry');
    await expect(
      write(chain, operator, {
        address: wrapper(),
        abi: wrapperAbi,
        functionName: 'reclaimPayment',
        args: [reference],
      }),
    ).rejects.toThrow(customError('NotPayer', operator.address, payer.address));
    const reclaimed = await reclaim(reference);
    expect(await moved(start)).toMatchObject({
      payer: -units('5'),
      merchant: units('5'),
      escrow: 0n,
      wrapper: 0n,
    });
    expect(legs(reclaimed)).toEqual([leg(reference, payer.address, '45')]);
    expect(await escrowState(reference)).toEqual([true, 0n, units('5')]);
  });

  it('refuses captures above what is held and by anyone but the operator', async () => {
    const reference = '0x0000000000000d04';
    await authorize(reference, '50');
    await expect(capture(reference, '50.000001')).rejects.toThrow('InsufficientAuthorization');
    await expect(capture(reference, '10', 0, payer)).rejects.toThrow(
      customError('NotOperator', payer.address, operator.address),
    );
    await expect(capture(reference, '10', 10_001)).rejects.toThrow(
      customError('InvalidFeeBps', '10001'),
    );
  });

  it('refuses a refund before any capture and one above what was captured', async () => {
    const reference = '0x0000000000000e05';
    await authorize(reference, '50');
    await expect(refund(reference, '10')).rejects.toThrow(
      customError('RefundExceedsCapture', units('10'), 0n),
    );
    await capture(reference, '30');
    await expect(refund(reference, '30.000001')).rejects.toThrow(
      customError('RefundExceedsCapture', units('30.000001'), units('30')),
    );
  });

  it('refuses amounts above uint96, expiries above uint48 and a second payment per reference', async () => {
    const reference = '0x0000000000000f06';
    const params = authParams(chain, {
      paymentReference: reference,
      payer: payer.address,
      merchant: merchant.address,
      operator: operator.address,
      token: token(),
      amount: units('1'),
      now: await chainNow(chain),
    });
    await expect(
      authorizeWith(payer, { ...params, amount: MAX_COMMERCE_AMOUNT + 1n }),
    ).rejects.toThrow('AmountTooLarge');
    await expect(
      authorizeWith(payer, { ...params, authorizationExpiry: MAX_COMMERCE_EXPIRY + 1n }),
    ).rejects.toThrow('ExpiryTooLarge');
    await expect(authorizeWith(merchant, params)).rejects.toThrow('TermsNotPreApproved');
    await authorize(reference, '1');
    await expect(authorize(reference, '1')).rejects.toThrow('PaymentAlreadyExists');
  });
});

describe('the escrow itself', () => {
  it('takes calls on a payment from its operator only', async () => {
    const info = {
      operator: operator.address,
      payer: payer.address,
      receiver: merchant.address,
      token: chain.addresses.usdc,
      maxAmount: 1n,
      preApprovalExpiry: 0,
      authorizationExpiry: 0,
      refundExpiry: 0,
      minFeeBps: 0,
      maxFeeBps: 0,
      feeReceiver: zeroAddress,
      salt: 0n,
    };
    await expect(
      write(chain, payer, {
        address: chain.addresses.authCaptureEscrow,
        abi: authCaptureEscrowArtifact.abi,
        functionName: 'void',
        args: [info],
      }),
    ).rejects.toThrow(customError('InvalidSender', payer.address, operator.address));
  });
});
