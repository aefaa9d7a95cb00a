import { fileURLToPath } from 'node:url';
import {
  type Abi,
  type AbiItem,
  getAddress,
  keccak256,
  toBytes,
  toEventSelector,
  toFunctionSelector,
} from 'viem';
import { formatAbiItem } from 'viem/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountOf } from '../../test/chain.ts';
import {
  type AuthParams,
  approve,
  authParams,
  balanceOf,
  chainNow,
  customError,
  wrapperAbi,
  write,
} from '../../test/commerce-contracts.ts';
import { compileFolder } from '../../test/solidity.ts';
import {
  authCaptureEscrowAbi,
  commerceConsentAbi,
  commerceWrapperAbi,
  MAX_COMMERCE_AMOUNT,
  MAX_COMMERCE_EXPIRY,
  PAYMENT_INFO_TYPEHASH,
} from '../payments/commerce/abi.ts';
import { commercePaymentHash, wrapperPaymentInfo } from '../payments/commerce/payment-info.ts';
import { type LocalChain, startLocalChain } from './chain.ts';
import {
  authCaptureEscrowArtifact,
  commerceEscrowWrapperArtifact,
  operatorRefundCollectorArtifact,
  preApprovalPaymentCollectorArtifact,
} from './commerce-escrow-artifacts.ts';

/** One .sol file per contract, with the interfaces and libraries they share. */
const compile = compileFolder(fileURLToPath(new URL('./contracts/commerce', import.meta.url)));

/** `name(types)` of every function, event and error: what selectors and topics are made of. */
function signatures(abi: readonly AbiItem[]): string[] {
  return abi
    .filter((item) => item.type === 'function' || item.type === 'event' || item.type === 'error')
    .map((item) => formatAbiItem(item));
}

/** Each function's selector, or each event's topic0, by name, from an ABI. */
function hashes(abi: Abi, type: 'function' | 'event'): Record<string, string> {
  return Object.fromEntries(
    abi.flatMap((item) =>
      item.type === type
        ? [
            [
              item.name,
              type === 'function'
                ? toFunctionSelector(formatAbiItem(item))
                : toEventSelector(formatAbiItem(item)),
            ],
          ]
        : [],
    ),
  );
}

/** A topic as contracts.md abbreviates it: its first 4 bytes, then its last 2. */
function abbreviated(topic: string | undefined): string {
  return topic ? `${topic.slice(0, 10)}…${topic.slice(-4)}` : 'missing';
}

describe('the shipped commerce escrow artifacts', () => {
  const escrow = compile('AuthCaptureEscrow');
  const wrapper = compile('ERC20CommerceEscrowWrapper');

  it('are what compiling the source gives (else run scripts/build-commerce-escrow.ts)', () => {
    const shipped = [
      ['AuthCaptureEscrow', authCaptureEscrowArtifact],
      ['PreApprovalPaymentCollector', preApprovalPaymentCollectorArtifact],
      ['OperatorRefundCollector', operatorRefundCollectorArtifact],
      ['ERC20CommerceEscrowWrapper', commerceEscrowWrapperArtifact],
    ] as const;
    for (const [name, artifact] of shipped) {
      const compiled = compile(name);
      expect(artifact.bytecode, name).toBe(compiled.bytecode);
      expect(artifact.abi, name).toEqual(compiled.abi);
    }
  });

  it('have every function, event and struct of the ABIs the service uses', () => {
    expect(signatures(wrapper.abi)).toEqual(expect.arrayContaining(signatures(commerceWrapperAbi)));
    expect(signatures(wrapper.abi)).toEqual(expect.arrayContaining(signatures(commerceConsentAbi)));
    expect(signatures(escrow.abi)).toEqual(
      expect.arrayContaining(signatures(authCaptureEscrowAbi)),
    );
    expect(signatures(wrapper.abi)).toEqual(
      expect.arrayContaining([
        'getPaymentData(bytes8)',
        'getPaymentState(bytes8)',
        'canCapture(bytes8)',
        'canVoid(bytes8)',
        'payments(bytes8)',
      ]),
    );
  });

  it('give the wrapper the selectors and topics of contracts.md §5.1', () => {
    expect(hashes(wrapper.abi, 'function')).toMatchObject({
      authorizePayment: '0x03af28e0',
      authorizeCommercePayment: '0xf2842470',
      capturePayment: '0xa2615767',
      voidPayment: '0x4eff2760',
      refundPayment: '0xf9b777ea',
      chargePayment: '0x246b52d3',
      reclaimPayment: '0xafda9d20',
    });
    const topics = hashes(wrapper.abi, 'event');
    expect(Object.fromEntries(Object.entries(topics).map(([k, v]) => [k, abbreviated(v)]))).toEqual(
      {
        PaymentAuthorized: '0xa7a365b0…8aef',
        CommercePaymentAuthorized: '0x86dcc39d…1732',
        PaymentCaptured: '0xd4f58691…d68b',
        PaymentVoided: '0x9639a8cb…1f62',
        PaymentRefunded: '0x06ea814c…93a4',
        PaymentCharged: '0x6c988772…6752',
        PaymentReclaimed: '0x8420c5c8…3409',
        // payreq's addition: the payer's consent to the terms (docs/guides/commerce.md).
        PaymentTermsPreApproved: abbreviated(
          toEventSelector('PaymentTermsPreApproved(bytes8,address,bytes32)'),
        ),
      },
    );
  });

  it('give the escrow the selectors and topics of contracts.md §5.2', () => {
    expect(hashes(escrow.abi, 'function')).toMatchObject({
      authorize: '0x41d66202',
      capture: '0x644cd79a',
      void: '0xfa1cad17',
      refund: '0xd458db5a',
      charge: '0x9e65819f',
      reclaim: '0xe1a2a66d',
      paymentState: '0x34b778ed',
    });
    const topics = hashes(escrow.abi, 'event');
    expect(Object.fromEntries(Object.entries(topics).map(([k, v]) => [k, abbreviated(v)]))).toEqual(
      {
        PaymentAuthorized: '0x1c81fb2e…d284',
        PaymentCaptured: '0xe749f7bb…74e2',
        PaymentVoided: '0xcadce8c3…5842',
        PaymentRefunded: '0x1bf41537…25b2',
        PaymentCharged: '0x943ae434…e7d0',
        PaymentReclaimed: '0x78e1d723…6d17',
      },
    );
  });

  it('hash PaymentInfo with the typehash of its type string', () => {
    expect(
      keccak256(
        toBytes(
          'PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)',
        ),
      ),
    ).toBe(PAYMENT_INFO_TYPEHASH);
  });
});

describe('the deployed commerce escrow', () => {
  let chain: LocalChain;
  beforeAll(async () => {
    chain = await startLocalChain({ chainId: 8453 });
  });
  afterAll(async () => {
    await chain.close();
  });

  it('stores the PaymentInfo typehash and hashes as payment-info.ts does', async () => {
    const escrow = chain.addresses.authCaptureEscrow;
    expect(
      await chain.client.readContract({
        address: escrow,
        abi: authCaptureEscrowArtifact.abi,
        functionName: 'PAYMENT_INFO_TYPEHASH',
      }),
    ).toBe(PAYMENT_INFO_TYPEHASH);
    const info = wrapperPaymentInfo({
      wrapper: chain.addresses.commerceEscrowWrapper,
      token: chain.addresses.usdc,
      maxAmount: 123_456_789n,
      preApprovalExpiry: 1_900_000_000,
      authorizationExpiry: 1_900_086_400,
      refundExpiry: 1_902_592_000,
      paymentReference: '0xa0098add01acc736',
    });
    expect(
      await chain.client.readContract({
        address: escrow,
        abi: authCaptureEscrowArtifact.abi,
        functionName: 'getHash',
        args: [info],
      }),
    ).toBe(commercePaymentHash(8453, escrow, info));
  });

  it('keeps, for a real authorization, the hash payment-info.ts computes', async () => {
    const [payer, merchant, operator] = [1, 2, 3].map((index) => accountOf(chain, index));
    if (!payer || !merchant || !operator) throw new Error('no wallets');
    const wrapper = chain.addresses.commerceEscrowWrapper;
    const params = authParams(chain, {
      paymentReference: '0x1122334455667788',
      payer: payer.address,
      merchant: merchant.address,
      operator: operator.address,
      token: chain.addresses.usdc,
      amount: 50_000_000n,
      now: await chainNow(chain),
    });
    await approve(chain, payer, chain.addresses.usdc, wrapper, params.amount);
    await write(chain, payer, {
      address: wrapper,
      abi: wrapperAbi,
      functionName: 'authorizePayment',
      args: [params],
    });
    const expected = commercePaymentHash(
      8453,
      chain.addresses.authCaptureEscrow,
      wrapperPaymentInfo({
        wrapper,
        token: params.token,
        maxAmount: params.maxAmount,
        preApprovalExpiry: Number(params.preApprovalExpiry),
        authorizationExpiry: Number(params.authorizationExpiry),
        refundExpiry: Number(params.refundExpiry),
        paymentReference: params.paymentReference,
      }),
    );
    const data = await chain.client.readContract({
      address: wrapper,
      abi: commerceEscrowWrapperArtifact.abi,
      functionName: 'getPaymentData',
      args: [params.paymentReference],
    });
    expect(data.commercePaymentHash).toBe(expected);
    expect(getAddress(data.payer)).toBe(payer.address);
    expect(
      await chain.client.readContract({
        address: chain.addresses.authCaptureEscrow,
        abi: authCaptureEscrowArtifact.abi,
        functionName: 'paymentState',
        args: [expected],
      }),
    ).toEqual([true, 50_000_000n, 0n]);
    expect(await balanceOf(chain, params.token, chain.addresses.authCaptureEscrow)).toBe(
      50_000_000n,
    );
  });

  it('refuses the amounts and expiries abi.ts says are too large', async () => {
    const payer = accountOf(chain, 1);
    const params = authParams(chain, {
      paymentReference: '0x99aabbccddeeff00',
      payer: payer.address,
      merchant: accountOf(chain, 2).address,
      operator: accountOf(chain, 3).address,
      token: chain.addresses.usdc,
      amount: 1n,
      now: await chainNow(chain),
    });
    const authorize = (args: AuthParams) =>
      write(chain, payer, {
        address: chain.addresses.commerceEscrowWrapper,
        abi: wrapperAbi,
        functionName: 'authorizePayment',
        args: [args],
      });
    await expect(authorize({ ...params, amount: MAX_COMMERCE_AMOUNT + 1n })).rejects.toThrow(
      customError('AmountTooLarge', MAX_COMMERCE_AMOUNT + 1n, MAX_COMMERCE_AMOUNT),
    );
    await expect(authorize({ ...params, maxAmount: MAX_COMMERCE_AMOUNT + 1n })).rejects.toThrow(
      'AmountTooLarge',
    );
    await expect(authorize({ ...params, refundExpiry: MAX_COMMERCE_EXPIRY + 1n })).rejects.toThrow(
      customError('ExpiryTooLarge', MAX_COMMERCE_EXPIRY + 1n, MAX_COMMERCE_EXPIRY),
    );
  });
});
