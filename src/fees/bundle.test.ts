import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/app.ts';
import type { Currency } from '../chains/currencies.ts';
import type { Network } from '../chains/networks.ts';
import { createChainRegistry } from '../chains/registry.ts';
import type { ProtocolFeeConfig } from '../config/protocol-fee.ts';
import { parseAmount } from '../payments/amounts.ts';
import { payableFees } from './bundle.ts';
import type { FeeConfigRecord } from './fee-configs.ts';
import { type FeeLegState, plannedFeeLegs } from './legs.ts';
import { buildFeePlan } from './plan.ts';
import { quantumUsdOf, usdOfBaseUnits } from './plan-amount.ts';

/**
 * What `/pay` adds for a link's fee legs: the calls for the legs still due, the `feeBundle`
 * naming them in the same order with the plan's amounts in the payment currency, and the
 * platform's and the protocol's rates for the metadata.
 */

const chains = createChainRegistry(testConfig());
const AT = new Date('2026-11-29T00:00:00Z');
const PLATFORM = '0x2546BcD3c84621e976D8185a91A922aE77ECEc30';
const PROTOCOL = '0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199';

function currency(id: string): Currency {
  const found = chains.currency(id);
  if (!found) throw new Error(id);
  return found;
}

function network(id: string): Network {
  const found = chains.network(id);
  if (!found) throw new Error(id);
  return found;
}

function config(
  feeBearer: 'payer' | 'recipient',
  bps: number,
  usdCap: bigint | null,
): FeeConfigRecord {
  return {
    id: `config-${feeBearer}`,
    orchestratorId: 'orc',
    clientIdId: null,
    clientId: null,
    flow: 'incoming',
    feeBearer,
    bps,
    usdCap,
    evmRecipientAddress: PLATFORM,
    tronRecipientAddress: null,
    status: 'active',
    createdAt: AT,
    updatedAt: AT,
  };
}

const PROTOCOL_FEE: ProtocolFeeConfig = {
  bps: 10,
  usdCap: null,
  evmRecipient: PROTOCOL,
  tronRecipient: null,
  tronSponsorshipUsd: null,
};

/**
 * The worked example (docs/guides/fees.md): 50 bps on the payer capped at 0.40 USD, 1 % on the
 * payee, the protocol's 10 bps; `amount` in base units of `paid`.
 */
function workedExample(paid: Currency, amount: bigint) {
  const plan = buildFeePlan({
    grossUsd: usdOfBaseUnits(amount, paid.decimals),
    flow: 'get_paid',
    configs: { payer: config('payer', 50, 40_000_000n), recipient: config('recipient', 100, null) },
    protocolFee: PROTOCOL_FEE,
    networkKind: 'evm',
    quantumUsd: quantumUsdOf(paid.decimals),
  });
  return { plan, legs: plannedFeeLegs(plan, paid) };
}

/** The legs as stored, with `paid[i]` base units paid on the i-th so far. */
function stored(
  paid: Currency,
  legs: ReturnType<typeof plannedFeeLegs>,
  paidAmounts: readonly bigint[] = [],
): FeeLegState[] {
  return legs.map((leg, i) => ({
    ...leg,
    id: `0193a000-0000-7000-8000-00000000000${i}`,
    requestRowId: '0193a000-0000-7000-8000-0000000000ff',
    feeRequestId: `01${String(i + 1).repeat(64)}`,
    network: paid.network,
    currency: paid.id,
    salt: 'a'.repeat(16),
    paymentReference: String(i + 1).repeat(16),
    referenceTopic: `0x${String(i + 1).repeat(64)}`,
    createdAt: AT,
    paidAmount: paidAmounts[i] ?? 0n,
    txHash: null,
    paidAt: null,
  }));
}

describe('payableFees', () => {
  it('bundles every unpaid leg in plan order, with the summary and the rates', () => {
    const usdc = currency('USDC-base');
    const { plan, legs } = workedExample(usdc, 100_000_000n);
    expect(
      payableFees(plan, stored(usdc, legs), {
        bundleId: 'bundle',
        currency: usdc,
        network: network('base'),
        grossAmount: 100_000_000n,
      }),
    ).toMatchInlineSnapshot(`
      {
        "calls": [
          {
            "amount": 400000n,
            "paymentReference": "1111111111111111",
            "recipient": "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
          },
          {
            "amount": 1000000n,
            "paymentReference": "2222222222222222",
            "recipient": "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
          },
          {
            "amount": 100000n,
            "paymentReference": "3333333333333333",
            "recipient": "0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199",
          },
        ],
        "feeBundle": {
          "amountSummary": {
            "grossAmount": "100",
            "netRecipientAmount": "98.9",
            "payeeBorneFees": "1.1",
            "payerBorneFees": "0.4",
            "payerTotal": "100.4",
            "totalFees": "1.5",
          },
          "bundleId": "bundle",
          "defaultFeeBearer": "payee",
          "fees": [
            {
              "amount": "0.4",
              "chainId": "8453",
              "feeBearer": "payer",
              "feeComponentId": "0193a000-0000-7000-8000-000000000000",
              "feeLabel": "Platform fee",
              "feeType": "orchestrator_fee",
              "network": "base",
              "paymentCurrencyId": "USDC-base",
              "paymentReference": "0x1111111111111111",
              "recipient": "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
              "requestId": "011111111111111111111111111111111111111111111111111111111111111111",
            },
            {
              "amount": "1",
              "chainId": "8453",
              "feeBearer": "payee",
              "feeComponentId": "0193a000-0000-7000-8000-000000000001",
              "feeLabel": "Platform fee",
              "feeType": "orchestrator_fee",
              "network": "base",
              "paymentCurrencyId": "USDC-base",
              "paymentReference": "0x2222222222222222",
              "recipient": "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
              "requestId": "012222222222222222222222222222222222222222222222222222222222222222",
            },
            {
              "amount": "0.1",
              "chainId": "8453",
              "feeBearer": "payee",
              "feeComponentId": "0193a000-0000-7000-8000-000000000002",
              "feeLabel": "Protocol fee",
              "feeType": "protocol_fee",
              "network": "base",
              "paymentCurrencyId": "USDC-base",
              "paymentReference": "0x3333333333333333",
              "recipient": "0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199",
              "requestId": "013333333333333333333333333333333333333333333333333333333333333333",
            },
          ],
        },
        "rates": {
          "platformFee": {
            "address": "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
            "percentage": "0.5",
          },
          "protocolFee": {
            "address": "0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199",
            "percentage": "0.1",
          },
        },
      }
    `);
  });

  it('leaves out paid legs and asks only for what is left of a partly paid one', () => {
    const usdc = currency('USDC-base');
    const { plan, legs } = workedExample(usdc, 100_000_000n);
    const fees = payableFees(plan, stored(usdc, legs, [400_000n, 250_000n]), {
      bundleId: 'bundle',
      currency: usdc,
      network: network('base'),
      grossAmount: 100_000_000n,
    });
    expect(fees.calls.map((call) => [call.paymentReference, call.amount])).toEqual([
      ['2222222222222222', 750_000n],
      ['3333333333333333', 100_000n],
    ]);
    expect(fees.feeBundle.fees.map((fee) => [fee.feeType, fee.feeBearer, fee.amount])).toEqual([
      ['orchestrator_fee', 'payee', '0.75'],
      ['protocol_fee', 'payee', '0.1'],
    ]);
    // The summary is the whole payment's, and the rates the plan's, whatever is paid.
    expect(fees.feeBundle.amountSummary?.payerTotal).toBe('100.4');
    expect(fees.rates.platformFee?.percentage).toBe('0.5');
  });

  it('sums an 18-decimal payment to the base unit, below the plan’s 8 USD decimals', () => {
    const dai = currency('DAI-mainnet');
    const parsed = parseAmount('100.000000000000000001', dai.decimals);
    if (!parsed.ok) throw new Error(parsed.message);
    const { plan, legs } = workedExample(dai, parsed.value);
    expect(plan.grossAmountUsd).toBe('100');
    const fees = payableFees(plan, stored(dai, legs), {
      bundleId: 'bundle',
      currency: dai,
      network: network('mainnet'),
      grossAmount: parsed.value,
    });
    expect(fees.feeBundle.amountSummary).toEqual({
      grossAmount: '100.000000000000000001',
      netRecipientAmount: '98.900000000000000001',
      totalFees: '1.5',
      payeeBorneFees: '1.1',
      payerBorneFees: '0.4',
      payerTotal: '100.400000000000000001',
    });
  });

  it('names no rate of a fee the plan lacks', () => {
    const usdc = currency('USDC-base');
    const plan = buildFeePlan({
      grossUsd: usdOfBaseUnits(100_000_000n, usdc.decimals),
      flow: 'pay',
      configs: null,
      protocolFee: PROTOCOL_FEE,
      networkKind: 'evm',
      quantumUsd: quantumUsdOf(usdc.decimals),
    });
    const fees = payableFees(plan, stored(usdc, plannedFeeLegs(plan, usdc)), {
      bundleId: 'bundle',
      currency: usdc,
      network: network('base'),
      grossAmount: 100_000_000n,
    });
    expect(fees.rates).toEqual({ protocolFee: { percentage: '0.1', address: PROTOCOL } });
  });
});
