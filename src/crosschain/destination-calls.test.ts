import type { LiFiStep } from '@lifi/types';
import { encodeFunctionData, type Hex, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aggregatorConfig,
  CHAIN_A,
  CHAIN_B,
  FEE_ADDRESS,
  FEE_PROXY_B,
  PAYEE,
  PAYER,
  REFERENCE,
  startFake,
  THIEF,
  USDC_B,
  USDT_A,
} from '../../test/aggregator.ts';
import { erc20FeeProxyAbi } from '../payments/abis.ts';
import type { FakeAggregator } from '../sandbox/aggregator/fake-aggregator.ts';
import { decodeDepositV3, encodeDepositV3 } from './across.ts';
import { createAggregator } from './aggregator.ts';
import { contractCallsOf, type Destination, destinationProblem } from './destination-calls.ts';

/**
 * The route check, on routes the fake aggregator really quotes (over HTTP) and on copies of
 * them altered one field at a time: each alteration is named, and only the honest route passes.
 */

const FEE_LEG_RECIPIENT = '0x976EA74026E726554dB657fA54763abd0C3a0aa9';
const FEE_LEG_REFERENCE: Hex = '0xfedcba9876543210';

const destination: Destination = {
  chainId: CHAIN_B,
  feeProxy: FEE_PROXY_B,
  token: USDC_B,
  payments: [
    {
      payee: PAYEE,
      amount: 25_000_000n,
      reference: REFERENCE,
      feeAmount: 100_000n,
      feeAddress: FEE_ADDRESS,
    },
    {
      payee: FEE_LEG_RECIPIENT,
      amount: 25_000n,
      reference: FEE_LEG_REFERENCE,
      feeAmount: 0n,
      feeAddress: zeroAddress,
    },
  ],
};

let fake: FakeAggregator;
let honest: LiFiStep;

async function quote(): Promise<LiFiStep> {
  const aggregator = createAggregator({ config: aggregatorConfig(fake) });
  return aggregator.quoteContractCalls({
    fromChain: CHAIN_A,
    fromToken: USDT_A,
    fromAddress: PAYER,
    toChain: CHAIN_B,
    toToken: USDC_B,
    toAmount: '25125000',
    toFallbackAddress: PAYER,
    contractCalls: contractCallsOf(destination),
  });
}

beforeAll(async () => {
  fake = await startFake();
  honest = await quote();
});
afterAll(() => fake.close());

/** A deep copy of the honest step with one custom step's action or estimate changed. */
function withCall(index: number, change: (call: Record<string, Record<string, unknown>>) => void) {
  const step = structuredClone(honest);
  const calls = step.includedSteps.filter((inner) => inner.type === 'custom');
  const call = calls[index];
  if (!call) throw new Error(`no call ${index}`);
  change(call as unknown as Record<string, Record<string, unknown>>);
  return step;
}

function payment(args: {
  to?: string;
  amount?: bigint;
  reference?: Hex;
  fee?: bigint;
  token?: string;
}): Hex {
  return encodeFunctionData({
    abi: erc20FeeProxyAbi,
    functionName: 'transferFromWithReferenceAndFee',
    args: [
      (args.token ?? USDC_B) as Hex,
      (args.to ?? PAYEE) as Hex,
      args.amount ?? 25_000_000n,
      args.reference ?? REFERENCE,
      args.fee ?? 100_000n,
      FEE_ADDRESS,
    ],
  });
}

describe('destinationProblem', () => {
  it('passes the honest route: two fee proxy calls, the payee’s and the fee leg’s', () => {
    expect(destinationProblem(honest, destination)).toBeNull();
    expect(honest.includedSteps.map((inner) => inner.type)).toEqual(['cross', 'custom', 'custom']);
  });

  it('names each way a destination call can fail to pay the link', () => {
    const cases: Record<string, LiFiStep> = {
      payee: withCall(0, (c) => {
        c.action = { ...c.action, toContractCallData: payment({ to: THIEF }) };
      }),
      amount: withCall(0, (c) => {
        c.action = { ...c.action, toContractCallData: payment({ amount: 24_000_000n }) };
      }),
      reference: withCall(0, (c) => {
        c.action = { ...c.action, toContractCallData: payment({ reference: FEE_LEG_REFERENCE }) };
      }),
      fee: withCall(0, (c) => {
        c.action = { ...c.action, toContractCallData: payment({ fee: 0n }) };
      }),
      token: withCall(0, (c) => {
        c.action = { ...c.action, toContractCallData: payment({ token: USDT_A }) };
      }),
      target: withCall(0, (c) => {
        c.action = { ...c.action, toContractAddress: THIEF };
      }),
      approval: withCall(1, (c) => {
        c.estimate = { ...c.estimate, approvalAddress: THIEF };
      }),
      received: withCall(1, (c) => {
        c.action = { ...c.action, fromAmount: '1' };
      }),
      'not a payment': withCall(1, (c) => {
        c.action = { ...c.action, toContractCallData: '0xdeadbeef' };
      }),
      chain: withCall(1, (c) => {
        c.action = { ...c.action, toChainId: CHAIN_A };
      }),
      'one call dropped': {
        ...honest,
        includedSteps: honest.includedSteps.filter((_, index) => index !== 2),
      },
    };
    const problems = Object.fromEntries(
      Object.entries(cases).map(([name, step]) => [name, destinationProblem(step, destination)]),
    );
    expect(problems).toMatchInlineSnapshot(`
      {
        "amount": "destination call 1: it pays 24000000 base units, not 25000000",
        "approval": "destination call 2 lets 0x90F79bf6EB2c4f870365E785982E1f101E93b906 pull the tokens",
        "chain": "destination call 2 is on another chain",
        "fee": "destination call 1: its fee is 0 to 0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65",
        "not a payment": "destination call 2: its call data is not a fee proxy payment",
        "one call dropped": "the route makes 1 destination calls, not 2",
        "payee": "destination call 1: it pays 0x90F79bf6EB2c4f870365E785982E1f101E93b906",
        "received": "destination call 2 receives 1 base units",
        "reference": "destination call 1: its payment reference is 0xfedcba9876543210",
        "target": "destination call 1 calls 0x90F79bf6EB2c4f870365E785982E1f101E93b906, not the fee proxy",
        "token": "destination call 1: it pays in 0x5FbDB2315678afecb367f032d93F642f64180aa3",
      }
    `);
  });

  it('refuses a deposit whose message makes other calls than the step describes', () => {
    const tx = honest.transactionRequest;
    if (!tx?.data) throw new Error('no transaction');
    const deposit = decodeDepositV3(tx.data as Hex);
    const [first, second] = deposit.message.calls;
    if (!first || !second) throw new Error('two calls');
    const stolen = encodeDepositV3({
      ...deposit,
      message: {
        ...deposit.message,
        calls: [{ ...first, callData: payment({ to: THIEF }) }, second],
      },
    });
    const short = encodeDepositV3({ ...deposit, outputAmount: 25_124_999n });
    const elsewhere = encodeDepositV3({ ...deposit, destinationChainId: 10n });
    const problems = [stolen, short, elsewhere].map((data) =>
      destinationProblem({ ...honest, transactionRequest: { ...tx, data } }, destination),
    );
    expect(problems).toMatchInlineSnapshot(`
      [
        "the bridge deposit's call 1 is not the payment asked for",
        "the bridge deposit delivers 25124999 base units, short of 25125000",
        "the bridge deposit goes to chain 10",
      ]
    `);
  });

  it('catches the fake’s own dishonest mode, which changes only the payee', async () => {
    fake.payElsewhere(THIEF);
    try {
      expect(destinationProblem(await quote(), destination)).toMatchInlineSnapshot(
        `"destination call 1: it pays 0x90F79bf6EB2c4f870365E785982E1f101E93b906"`,
      );
    } finally {
      fake.payElsewhere(null);
    }
  });

  it('refuses a route that ends on another token or chain', () => {
    const otherToken = structuredClone(honest);
    otherToken.action.toToken = { ...otherToken.action.toToken, address: USDT_A };
    const otherChain = structuredClone(honest);
    otherChain.action.toChainId = CHAIN_A;
    expect([
      destinationProblem(otherToken, destination),
      destinationProblem(otherChain, destination),
    ]).toMatchInlineSnapshot(`
      [
        "the route delivers 0x5FbDB2315678afecb367f032d93F642f64180aa3, not 0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
        "the route ends on chain 31337, not 31338",
      ]
    `);
  });
});
