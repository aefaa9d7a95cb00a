import {
  type Address,
  encodeAbiParameters,
  encodeEventTopics,
  getAddress,
  type Hex,
  pad,
  parseAbi,
  parseAbiParameters,
  toHex,
} from 'viem';
import { describe, expect, it } from 'vitest';
import { payersOf, type ReceiptLog } from './payer-accounts.ts';

/** Receipts written by hand: each rule of who paid, one by one (the chain's are in test/e2e). */

const TOKEN = getAddress('0x00000000000000000000000000000000000000A1');
const PAYEE = getAddress('0x00000000000000000000000000000000000000B2');
const SENDER = getAddress('0x00000000000000000000000000000000000000C3');
const ACCOUNT = getAddress('0x00000000000000000000000000000000000000d4');
const OWNER = getAddress('0x00000000000000000000000000000000000000E5');
const POOL = getAddress('0x00000000000000000000000000000000000000F6');
const BATCH = getAddress('0x0000000000000000000000000000000000000Ba7');
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const USER_OPERATION = '0x49628fd1471006c1482da88028e9ce4dbb080b815c9b0344d39e5a8e6ec1419f';

const topic = (address: Address): Hex => pad(address.toLowerCase() as Hex, { size: 32 });

function transfer(from: Address, to: Address, value: bigint, logIndex: number): ReceiptLog {
  return {
    address: TOKEN,
    topics: [TRANSFER, topic(from), topic(to)],
    data: toHex(value, { size: 32 }),
    logIndex,
  };
}

/** The proxy's event sits after the transfers; only its index matters here. */
const payment = (logIndex: number, amount = 100n) => ({
  tokenAddress: TOKEN,
  payee: PAYEE,
  amount,
  logIndex,
});

const chain = {
  intermediaries: new Set([BATCH.toLowerCase()]),
  isEoa: async (address: Address) => address !== POOL,
};

const FILLED_V3_RELAY = parseAbi([
  'event FilledV3Relay(address inputToken, address outputToken, uint256 inputAmount, uint256 outputAmount, uint256 repaymentChainId, uint256 indexed originChainId, uint32 indexed depositId, uint32 fillDeadline, uint32 exclusivityDeadline, address exclusiveRelayer, address indexed relayer, address depositor, address recipient, bytes message, (address updatedRecipient, bytes updatedMessage, uint256 updatedOutputAmount, uint8 fillType) relayExecutionInfo)',
]);

/** Across's fill of a deposit `depositor` made on chain 42161, delivering `token` to ACCOUNT. */
function fill(token: Address, depositor: Address, logIndex: number): ReceiptLog {
  const topics = encodeEventTopics({
    abi: FILLED_V3_RELAY,
    eventName: 'FilledV3Relay',
    args: { originChainId: 42161n, depositId: 7, relayer: SENDER },
  }) as Hex[];
  const data = encodeAbiParameters(
    parseAbiParameters(
      'address, address, uint256, uint256, uint256, uint32, uint32, address, address, address, bytes, (address, bytes, uint256, uint8)',
    ),
    [
      POOL,
      token,
      101n,
      100n,
      8453n,
      0,
      0,
      SENDER,
      depositor,
      ACCOUNT,
      '0x',
      [ACCOUNT, '0x', 100n, 0],
    ],
  );
  return { address: POOL, topics, data, logIndex };
}

const of = (logs: ReceiptLog[], logIndex: number, amount?: bigint) =>
  payersOf({ from: SENDER, logs }, payment(logIndex, amount), chain);

describe('payersOf', () => {
  it('names the depositor and the origin chain when a bridge fill delivered the token first', async () => {
    expect(await of([fill(TOKEN, OWNER, 0)], 1)).toEqual({
      payerAddress: OWNER,
      payerEoaAddress: OWNER,
      bridgedFrom: { originChainId: 42161 },
    });
    // A fill of another token, or one after the payment, names no one.
    expect(await of([fill(BATCH, OWNER, 0)], 1)).toEqual({
      payerAddress: SENDER,
      payerEoaAddress: SENDER,
    });
    expect(await of([fill(TOKEN, OWNER, 2)], 1)).toEqual({
      payerAddress: SENDER,
      payerEoaAddress: SENDER,
    });
  });

  it('names the sender twice when the tokens left the sender', async () => {
    expect(await of([transfer(SENDER, PAYEE, 100n, 0)], 1)).toEqual({
      payerAddress: SENDER,
      payerEoaAddress: SENDER,
    });
  });

  it('names the sender for the native currency, which leaves no Transfer', async () => {
    expect(
      await payersOf({ from: SENDER, logs: [] }, { ...payment(0), tokenAddress: null }, chain),
    ).toEqual({ payerAddress: SENDER, payerEoaAddress: SENDER });
  });

  it('names the account the tokens left, and the sender that drove it (a Safe)', async () => {
    expect(await of([transfer(ACCOUNT, PAYEE, 100n, 0)], 1)).toEqual({
      payerAddress: ACCOUNT,
      payerEoaAddress: SENDER,
    });
  });

  it('names the EOA whose tokens the account took in the same transaction', async () => {
    expect(
      await of([transfer(OWNER, ACCOUNT, 100n, 0), transfer(ACCOUNT, PAYEE, 100n, 1)], 2),
    ).toEqual({ payerAddress: ACCOUNT, payerEoaAddress: OWNER });
  });

  it('does not take a contract that sent the account tokens (a pool) for its owner', async () => {
    expect(
      await of([transfer(POOL, ACCOUNT, 100n, 0), transfer(ACCOUNT, PAYEE, 100n, 1)], 2),
    ).toEqual({ payerAddress: ACCOUNT, payerEoaAddress: SENDER });
  });

  it('names no EOA for a user operation a bundler sent, unless the account took an EOA’s tokens', async () => {
    const operation: ReceiptLog = {
      address: '0x0000000071727De22E5E9d8BAf0edAc6f37da032',
      topics: [USER_OPERATION, pad('0x01', { size: 32 }), topic(ACCOUNT), pad('0x', { size: 32 })],
      data: '0x',
      logIndex: 5,
    };
    expect(await of([transfer(ACCOUNT, PAYEE, 100n, 0), operation], 1)).toEqual({
      payerAddress: ACCOUNT,
      payerEoaAddress: null,
    });
    expect(
      await of(
        [transfer(OWNER, ACCOUNT, 100n, 0), transfer(ACCOUNT, PAYEE, 100n, 1), operation],
        2,
      ),
    ).toEqual({ payerAddress: ACCOUNT, payerEoaAddress: OWNER });
  });

  it('looks through the batch contract to whoever sent it the tokens', async () => {
    expect(
      await of([transfer(SENDER, BATCH, 300n, 0), transfer(BATCH, PAYEE, 100n, 1)], 2),
    ).toEqual({ payerAddress: SENDER, payerEoaAddress: SENDER });
    expect(
      await of([transfer(ACCOUNT, BATCH, 300n, 0), transfer(BATCH, PAYEE, 100n, 1)], 2),
    ).toEqual({ payerAddress: ACCOUNT, payerEoaAddress: SENDER });
  });

  it('keeps the sender when no transfer of the amount to the payee precedes the event', async () => {
    expect(await of([transfer(ACCOUNT, PAYEE, 99n, 0)], 1)).toEqual({
      payerAddress: SENDER,
      payerEoaAddress: SENDER,
    });
    expect(await of([transfer(ACCOUNT, PAYEE, 100n, 2)], 1)).toEqual({
      payerAddress: SENDER,
      payerEoaAddress: SENDER,
    });
  });
});
