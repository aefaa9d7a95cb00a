import { readFileSync } from 'node:fs';
import {
  type Abi,
  type Address,
  createWalletClient,
  custom,
  encodeFunctionData,
  type Hex,
  parseAbi,
  parseEventLogs,
} from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { referenceBytes, referenceTopic } from '../../src/payments/references.ts';
import { RELAYER_ROLE, recurringPaymentProxyAbi } from '../../src/payouts/recurring/abi.ts';
import type { SchedulePermitValues } from '../../src/payouts/recurring/permit.ts';
import { triggerRecurringPayment } from '../../src/payouts/recurring/trigger.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { accountOf } from '../chain.ts';
import { chainTime, mineAt, revertOf, signPermit, TOKEN_ABI, WEEK } from '../recurring-proxy.ts';
import { compileContract } from '../solidity.ts';

/**
 * ERC20RecurringPaymentProxy compiled in the test from the source we wrote to contracts.md §4,
 * deployed on the local chain against the real ERC20FeeProxy: a payer's wallet signs the
 * permit, approves, and the relayer triggers 1-based indexes. Each payment moves exactly the
 * amount, the fee and the relayer fee; every refusal reverts with the documented error.
 */

const SOURCE = new URL(
  '../../src/sandbox/contracts/ERC20RecurringPaymentProxy.sol',
  import.meta.url,
);
const FEE_PROXY_EVENT = parseAbi([
  'event TransferWithReferenceAndFee(address tokenAddress, address to, uint256 amount, bytes indexed paymentReference, uint256 feeAmount, address feeAddress)',
]);
const PAYEE = '0x000000000000000000000000000000000000bEEF';
const FEE_ADDRESS = '0x000000000000000000000000000000000000Fee5';

let chain: LocalChain;
let abi: Abi;
let proxy: Address;
let snapshot: Hex;
const admin = () => accountOf(chain, 0);
const payer = () => accountOf(chain, 1);
const relayer = () => accountOf(chain, 2);
const stranger = () => accountOf(chain, 3);

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 31337, walletCount: 4 });
  const compiled = compileContract(readFileSync(SOURCE, 'utf8'), 'ERC20RecurringPaymentProxy');
  abi = compiled.abi;
  const hash = await wallet(admin()).deployContract({
    abi,
    bytecode: compiled.bytecode,
    args: [admin().address, relayer().address, chain.addresses.erc20FeeProxy],
  });
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error('the proxy was not deployed');
  proxy = receipt.contractAddress;
  await send(payer(), {
    to: chain.addresses.usdc,
    data: encodeFunctionData({
      abi: TOKEN_ABI,
      functionName: 'approve',
      args: [proxy, 10n ** 12n],
    }),
  });
}, 120_000);
afterAll(async () => {
  await chain?.close();
});
beforeEach(async () => {
  snapshot = await chain.snapshot();
});
afterEach(async () => {
  await chain.revert(snapshot);
});

function wallet(account: ReturnType<typeof accountOf>) {
  return createWalletClient({
    account,
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
}

async function send(account: ReturnType<typeof accountOf>, tx: { to: Address; data: Hex }) {
  const hash = await wallet(account).sendTransaction(tx);
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`${hash} reverted`);
  return receipt;
}

let nonce = 0n;
/** A schedule of 3 weekly USDC payments starting now, signed by the payer (or `signer`). */
async function schedule(values: Partial<SchedulePermitValues> = {}, signer = payer().address) {
  const now = await chainTime(chain);
  nonce += 1n;
  const permit: SchedulePermitValues = {
    subscriber: payer().address,
    token: chain.addresses.usdc,
    recipient: PAYEE,
    feeAddress: FEE_ADDRESS,
    amount: 25_000_000n,
    feeAmount: 250_000n,
    relayerFee: 10_000n,
    periodSeconds: WEEK,
    firstPayment: now,
    totalPayments: 3,
    nonce,
    deadline: BigInt(now + 52 * WEEK),
    strictOrder: false,
    ...values,
  };
  return { permit, signature: await signPermit(chain, proxy, signer, permit) };
}

type Signed = Awaited<ReturnType<typeof schedule>>;

/** The relayer's call for `index`, encoded directly so the builder's own guard is not in the way. */
function call(signed: Signed, index: number, reference = 'a0098add01acc736') {
  return {
    to: proxy,
    data: encodeFunctionData({
      abi: recurringPaymentProxyAbi,
      functionName: 'triggerRecurringPayment',
      args: [signed.permit, signed.signature, index, referenceBytes(reference)],
    }),
  };
}

async function pay(signed: Signed, index: number, reference = 'a0098add01acc736') {
  const tx = triggerRecurringPayment({
    chainId: chain.chainId,
    proxy,
    ...signed,
    index,
    paymentReference: reference,
  });
  expect(tx.value).toBe('0x0');
  return send(relayer(), { to: tx.to, data: tx.data });
}

/** The custom error's name (without the contract prefix), or the revert string, or the panic. */
async function refusal(signed: Signed, index: number, from = relayer().address) {
  const error = await revertOf(chain, abi, { from, ...call(signed, index) });
  if (error.errorName === 'Error' || error.errorName === 'Panic') return error.args?.[0];
  return error.errorName.replace('ERC20RecurringPaymentProxy__', '');
}

const balanceOf = (owner: Address) =>
  chain.client.readContract({
    address: chain.addresses.usdc,
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });

describe('ERC20RecurringPaymentProxy compiled from our source', () => {
  it('pays index 1: exactly the amount, the fee and the relayer fee, under the reference', async () => {
    const signed = await schedule();
    const holders = [payer().address, PAYEE, FEE_ADDRESS, relayer().address, proxy] as const;
    const before = await Promise.all(holders.map(balanceOf));
    const receipt = await pay(signed, 1, '0123456789abcdef');
    const after = await Promise.all(holders.map(balanceOf));
    expect(after.map((balance, i) => balance - (before[i] ?? 0n))).toEqual([
      -(25_000_000n + 250_000n + 10_000n),
      25_000_000n,
      250_000n,
      10_000n,
      0n,
    ]);
    const events = parseEventLogs({ abi: FEE_PROXY_EVENT, logs: receipt.logs });
    expect(events).toHaveLength(1);
    expect(events[0]?.address).toBe(chain.addresses.erc20FeeProxy.toLowerCase());
    expect(events[0]?.topics[1]).toBe(referenceTopic('0123456789abcdef'));
    expect(events[0]?.args).toMatchObject({
      tokenAddress: chain.addresses.usdc,
      to: PAYEE,
      amount: 25_000_000n,
      feeAmount: 250_000n,
      feeAddress: FEE_ADDRESS,
    });
    const left = await chain.client.readContract({
      address: chain.addresses.usdc,
      abi: TOKEN_ABI,
      functionName: 'allowance',
      args: [proxy, chain.addresses.erc20FeeProxy],
    });
    expect(left).toBe(0n);
  });

  it('pays an index once it is due, and never twice', async () => {
    const signed = await schedule();
    await pay(signed, 1);
    expect(await refusal(signed, 1)).toBe('AlreadyPaid');
    expect(await refusal(signed, 2)).toBe('NotDueYet');
    await mineAt(chain, signed.permit.firstPayment + WEEK);
    await pay(signed, 2);
    expect(await refusal(signed, 2)).toBe('AlreadyPaid');
    expect(await refusal(signed, 4)).toBe('IndexOutOfBounds');
  });

  it('refuses index 0: it underflows computing the due date (panic 0x11)', async () => {
    expect(await refusal(await schedule(), 0)).toBe(0x11n);
    // Under strictOrder the order check comes first.
    expect(await refusal(await schedule({ strictOrder: true }), 0)).toBe('PaymentOutOfOrder');
  });

  it('pays in order only under strictOrder', async () => {
    const signed = await schedule({
      strictOrder: true,
      firstPayment: (await chainTime(chain)) - 3 * WEEK,
    });
    expect(await refusal(signed, 2)).toBe('PaymentOutOfOrder');
    await pay(signed, 1);
    expect(await refusal(signed, 3)).toBe('PaymentOutOfOrder');
    expect(await refusal(signed, 1)).toBe('PaymentOutOfOrder');
    await pay(signed, 2);
    await pay(signed, 3);
    expect(await refusal(signed, 3)).toBe('PaymentOutOfOrder');
    // In order, but past the last payment.
    expect(await refusal(signed, 4)).toBe('IndexOutOfBounds');
  });

  it('refuses a signature by someone else, its malleable twin and an expired permit', async () => {
    expect(await refusal(await schedule({}, stranger().address), 1)).toBe('BadSignature');
    const signed = await schedule();
    expect(await refusal({ ...signed, signature: twin(signed.signature) }, 1)).toBe('BadSignature');
    const expired = await schedule({ deadline: BigInt((await chainTime(chain)) - 1) });
    expect(await refusal(expired, 1)).toBe('SignatureExpired');
  });

  it('lets only a relayer trigger, and nobody while paused', async () => {
    const signed = await schedule();
    expect(await refusal(signed, 1, stranger().address)).toBe(
      `AccessControl: account ${stranger().address.toLowerCase()} is missing role ${RELAYER_ROLE}`,
    );
    const admin_ = (functionName: 'pause' | 'unpause') =>
      send(admin(), {
        to: proxy,
        data: encodeFunctionData({ abi: recurringPaymentProxyAbi, functionName }),
      });
    await admin_('pause');
    expect(await refusal(signed, 1)).toBe('Pausable: paused');
    await admin_('unpause');
    await pay(signed, 1);
  });

  it('lets the owner alone move the relayer role and the fee proxy', async () => {
    const adminCall = (
      functionName: 'setRelayer' | 'setFeeProxy',
      args: readonly Address[],
      from = admin().address,
    ) => ({
      from,
      to: proxy,
      data: encodeFunctionData({ abi: recurringPaymentProxyAbi, functionName, args } as never),
    });
    const moved = adminCall('setRelayer', [relayer().address, stranger().address]);
    expect((await revertOf(chain, abi, { ...moved, from: stranger().address })).args).toEqual([
      'Ownable: caller is not the owner',
    ]);
    const zero = adminCall('setFeeProxy', ['0x0000000000000000000000000000000000000000']);
    expect((await revertOf(chain, abi, zero)).errorName).toBe(
      'ERC20RecurringPaymentProxy__ZeroAddress',
    );
    await send(admin(), { to: moved.to, data: moved.data });
    const signed = await schedule();
    expect(await refusal(signed, 1)).toMatch(/^AccessControl: account .* is missing role/);
    await send(stranger(), call(signed, 1));
    expect(await balanceOf(PAYEE)).toBe(25_000_000n);
  });
});

/** The same signature with s → n − s and v flipped: valid for ecrecover, refused by EIP-2. */
function twin(signature: Hex): Hex {
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const r = signature.slice(2, 66);
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130, 132), 16);
  return `0x${r}${(n - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
}
