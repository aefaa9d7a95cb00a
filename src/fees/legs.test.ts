import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/app.ts';
import type { Currency } from '../chains/currencies.ts';
import { createChainRegistry } from '../chains/registry.ts';
import { formatAmount } from '../payments/amounts.ts';
import type { FeeConfigRecord } from './fee-configs.ts';
import { planBaseUnits, plannedFeeLegs } from './legs.ts';
import { buildFeePlan } from './plan.ts';
import { quantumUsdOf, usdOfBaseUnits } from './plan-amount.ts';

/**
 * A plan's fees in USD become legs in base units of the payment's stablecoin: each leg is
 * exactly its fee, for 6 decimals as for 18, since the plan rounds each fee to a base unit.
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

function config(feeBearer: 'payer' | 'recipient', bps: number): FeeConfigRecord {
  return {
    id: `config-${feeBearer}`,
    orchestratorId: 'orc',
    clientIdId: null,
    clientId: null,
    flow: 'incoming',
    feeBearer,
    bps,
    usdCap: null,
    evmRecipientAddress: PLATFORM,
    tronRecipientAddress: null,
    status: 'active',
    createdAt: AT,
    updatedAt: AT,
  };
}

/** The plan of `amount` base units of `paid`: 37 bps on the payer, 1 % and 10 bps on the payee. */
function planOf(paid: Currency, amount: bigint) {
  return buildFeePlan({
    grossUsd: usdOfBaseUnits(amount, paid.decimals),
    flow: 'get_paid',
    configs: { payer: config('payer', 37), recipient: config('recipient', 100) },
    protocolFee: {
      bps: 10,
      usdCap: null,
      evmRecipient: PROTOCOL,
      tronRecipient: null,
      tronSponsorshipUsd: null,
    },
    networkKind: 'evm',
    quantumUsd: quantumUsdOf(paid.decimals),
  });
}

describe('plannedFeeLegs', () => {
  it.each([
    ['USDC-base', 123_456_789n],
    ['DAI-mainnet', 123_456_789_012_345_678_901n],
  ])('gives each %s leg exactly its fee’s calculatedAmountUsd in base units', (id, amount) => {
    const paid = currency(id);
    const plan = planOf(paid, amount);
    const legs = plannedFeeLegs(plan, paid);
    expect(legs.map((leg) => leg.position)).toEqual([0, 1, 2]);
    for (const leg of legs) {
      expect(formatAmount(leg.amount, paid.decimals)).toBe(
        plan.fees[leg.position]?.calculatedAmountUsd,
      );
    }
  });

  it('rounds USDC’s fees to its 6 decimals in the plan, so legs lose nothing', () => {
    const usdc = currency('USDC-base');
    const plan = planOf(usdc, 123_456_789n);
    expect(plan.fees.map((fee) => fee.calculatedAmountUsd)).toEqual([
      '0.45679',
      '1.234567',
      '0.123456',
    ]);
    expect(plannedFeeLegs(plan, usdc).map((leg) => [leg.type, leg.feeBearer, leg.amount])).toEqual([
      ['orchestrator_fee', 'payer', 456_790n],
      ['orchestrator_fee', 'payee', 1_234_567n],
      ['protocol_fee', 'payee', 123_456n],
    ]);
  });

  it('keeps DAI’s fees to the plan’s 8 decimals, each a whole number of its base units', () => {
    const dai = currency('DAI-mainnet');
    const plan = planOf(dai, 123_456_789_012_345_678_901n);
    expect(plan.grossAmountUsd).toBe('123.45678901');
    expect(plan.fees.map((fee) => fee.calculatedAmountUsd)).toEqual([
      '0.45679011',
      '1.23456789',
      '0.12345678',
    ]);
    expect(plannedFeeLegs(plan, dai).map((leg) => leg.amount)).toEqual([
      456_790_110_000_000_000n,
      1_234_567_890_000_000_000n,
      123_456_780_000_000_000n,
    ]);
  });

  it('leaves out a fee worth less than a base unit, keeping the others’ plan positions', () => {
    const usdc = currency('USDC-base');
    // 0.0001 USDC: 37 bps and 10 bps of it are below USDC's unit, 1 % is one unit.
    const plan = planOf(usdc, 100n);
    expect(plan.fees.map((fee) => fee.calculatedAmountUsd)).toEqual(['0', '0.000001', '0']);
    expect(plannedFeeLegs(plan, usdc).map((leg) => [leg.position, leg.amount])).toEqual([[1, 1n]]);
  });

  it('has no legs without a plan, nor on a network kind its fees name no recipient for', () => {
    const usdt = currency('USDT-tron');
    expect(plannedFeeLegs(null, usdt)).toEqual([]);
    expect(plannedFeeLegs(planOf(usdt, 1_000_000n), usdt)).toEqual([]);
  });
});

describe('planBaseUnits', () => {
  it('reads a plan’s USD as base units of 6 and of 18 decimals, rounding down', () => {
    const usdc = currency('USDC-base');
    const dai = currency('DAI-mainnet');
    expect(planBaseUnits('98.9', usdc)).toBe(98_900_000n);
    expect(planBaseUnits('0.00000099', usdc)).toBe(0n);
    expect(planBaseUnits('0', usdc)).toBe(0n);
    expect(planBaseUnits('98.9', dai)).toBe(98_900_000_000_000_000_000n);
    expect(planBaseUnits('0.00000001', dai)).toBe(10_000_000_000n);
  });
});
