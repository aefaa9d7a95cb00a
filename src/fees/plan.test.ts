import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FeePlan } from '../base/fee-plan.ts';
import type { ProtocolFeeConfig } from '../config/protocol-fee.ts';
import { parseAmount } from '../payments/amounts.ts';
import type { FeeConfigRecord } from './fee-configs.ts';
import { buildFeePlan } from './plan.ts';
import { usdOfBaseUnits } from './plan-amount.ts';

const AT = new Date('2026-11-29T00:00:00Z');
const EVM = '0x2546BcD3c84621e976D8185a91A922aE77ECEc30';
const PROTOCOL_EVM = '0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199';
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

function config(fields: Partial<FeeConfigRecord> & Pick<FeeConfigRecord, 'feeBearer'>) {
  return {
    id: `config-${fields.feeBearer}`,
    orchestratorId: 'orc',
    clientIdId: null,
    clientId: null,
    flow: 'incoming',
    bps: 50,
    usdCap: null,
    evmRecipientAddress: EVM,
    tronRecipientAddress: null,
    status: 'active',
    createdAt: AT,
    updatedAt: AT,
    ...fields,
  } satisfies FeeConfigRecord;
}

/** A plan's decimal string back in USD with 8 decimals (0 included). */
const usd = (value: string): bigint => {
  if (value === '0') return 0n;
  const parsed = parseAmount(value, 8);
  if (!parsed.ok) throw new Error(`${value}: ${parsed.message}`);
  return parsed.value;
};

const protocol = (fields: Partial<ProtocolFeeConfig> = {}): ProtocolFeeConfig => ({
  bps: 10,
  usdCap: null,
  evmRecipient: PROTOCOL_EVM,
  tronRecipient: TRON,
  tronSponsorshipUsd: usd('3.99'),
  ...fields,
});

describe('buildFeePlan', () => {
  it('gives the worked example of docs/guides/fees.md to the cent', () => {
    const plan = buildFeePlan({
      grossUsd: usdOfBaseUnits(100_000_000n, 6),
      flow: 'get_paid',
      configs: {
        payer: config({ feeBearer: 'payer', bps: 50, usdCap: usd('0.40') }),
        recipient: config({ feeBearer: 'recipient', bps: 100, clientIdId: 'cid' }),
      },
      protocolFee: protocol(),
      networkKind: 'evm',
    });
    expect(plan).toEqual({
      version: 1,
      flow: 'get_paid',
      defaultFeeBearer: 'payee',
      grossAmountUsd: '100',
      netRecipientAmountUsd: '98.9',
      payerTotalAmountUsd: '100.4',
      totalFeesUsd: '1.5',
      payeeBorneFeesUsd: '1.1',
      payerBorneFeesUsd: '0.4',
      fees: [
        {
          type: 'orchestrator_fee',
          label: 'Platform fee',
          feeBearer: 'payer',
          feeBearerSource: 'fee_config',
          percentageBps: 50,
          capUsd: '0.4',
          fixedAmountUsd: null,
          calculatedAmountUsd: '0.4',
          destinationResolver: 'orchestrator_fee_config',
          destinationRef: { evmAddress: EVM },
          configSource: 'orchestrator_default',
        },
        {
          type: 'orchestrator_fee',
          label: 'Platform fee',
          feeBearer: 'payee',
          feeBearerSource: 'fee_config',
          percentageBps: 100,
          capUsd: null,
          fixedAmountUsd: null,
          calculatedAmountUsd: '1',
          destinationResolver: 'orchestrator_fee_config',
          destinationRef: { evmAddress: EVM },
          configSource: 'client_id_config',
        },
        {
          type: 'protocol_fee',
          label: 'Protocol fee',
          feeBearer: 'payee',
          feeBearerSource: 'flow_default',
          percentageBps: 10,
          capUsd: null,
          fixedAmountUsd: null,
          calculatedAmountUsd: '0.1',
          destinationResolver: 'protocol_fee_config',
          destinationRef: { evmAddress: PROTOCOL_EVM },
          configSource: 'protocol',
        },
      ],
    });
  });

  it('lets the payment default override the flow’s, never a config’s own bearer', () => {
    const plan = buildFeePlan({
      grossUsd: usd('10'),
      flow: 'pay',
      defaultFeeBearer: 'payee',
      configs: { payer: config({ feeBearer: 'payer' }), recipient: null },
      protocolFee: protocol(),
      networkKind: 'evm',
    });
    expect(plan.fees.map((fee) => [fee.type, fee.feeBearer, fee.feeBearerSource])).toEqual([
      ['orchestrator_fee', 'payer', 'fee_config'],
      ['protocol_fee', 'payee', 'payment_default_override'],
    ]);
    const byDefault = buildFeePlan({
      grossUsd: usd('10'),
      flow: 'pay',
      configs: null,
      protocolFee: protocol(),
      networkKind: 'evm',
    });
    expect(byDefault.defaultFeeBearer).toBe('payer');
    expect(byDefault.fees[0]?.feeBearerSource).toBe('flow_default');
    expect(byDefault.payerTotalAmountUsd).toBe('10.01');
  });

  it('adds the Tron sponsorship only on Tron, paid to the Tron recipient', () => {
    const tron = buildFeePlan({
      grossUsd: usd('100'),
      flow: 'get_paid',
      configs: null,
      protocolFee: protocol(),
      networkKind: 'tron',
    });
    expect(tron.fees).toMatchObject([
      {
        fixedAmountUsd: '3.99',
        calculatedAmountUsd: '4.09',
        destinationRef: { tronAddress: TRON },
      },
    ]);
    const evm = buildFeePlan({
      grossUsd: usd('100'),
      flow: 'get_paid',
      configs: null,
      protocolFee: protocol({ bps: 0 }),
      networkKind: 'evm',
    });
    expect(evm.fees).toEqual([]);
    expect(evm.netRecipientAmountUsd).toBe('100');
  });

  it('charges no protocol fee on a network kind without its recipient', () => {
    const plan = buildFeePlan({
      grossUsd: usd('100'),
      flow: 'get_paid',
      configs: null,
      protocolFee: protocol({ evmRecipient: null }),
      networkKind: 'evm',
    });
    expect(plan.fees).toEqual([]);
  });

  it('adds up, holds caps and never takes more than the gross from the payee (property)', () => {
    const cap = fc.option(fc.bigInt({ min: 1n, max: 10n ** 12n }), { nil: null });
    const bearerConfig = (feeBearer: 'payer' | 'recipient') =>
      fc.option(
        fc
          .record({ bps: fc.integer({ min: 0, max: 10_000 }), usdCap: cap })
          .map((fields) => config({ feeBearer, ...fields })),
        { nil: null },
      );
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 20n }),
        bearerConfig('payer'),
        bearerConfig('recipient'),
        fc.option(
          fc
            .record({ bps: fc.integer({ min: 0, max: 10_000 }), usdCap: cap })
            .map((fields) => protocol(fields)),
          { nil: null },
        ),
        fc.constantFrom('get_paid' as const, 'pay' as const),
        fc.constantFrom(undefined, 'payer' as const, 'payee' as const),
        fc.constantFrom('evm' as const, 'tron' as const),
        (grossUsd, payer, recipient, protocolFee, flow, defaultFeeBearer, networkKind) => {
          const plan = buildFeePlan({
            grossUsd,
            flow,
            defaultFeeBearer,
            configs: { payer, recipient },
            protocolFee,
            networkKind,
          });
          checkTotals(plan, grossUsd);
          for (const fee of plan.fees) {
            const fixed = fee.fixedAmountUsd === null ? 0n : usd(fee.fixedAmountUsd);
            if (fee.capUsd !== null) {
              expect(usd(fee.calculatedAmountUsd)).toBeLessThanOrEqual(usd(fee.capUsd) + fixed);
            }
            expect(usd(fee.calculatedAmountUsd)).toBeLessThanOrEqual(
              (grossUsd * BigInt(fee.percentageBps)) / 10_000n + fixed,
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

function checkTotals(plan: FeePlan, grossUsd: bigint): void {
  const sum = (bearer: 'payer' | 'payee') =>
    plan.fees
      .filter((fee) => fee.feeBearer === bearer)
      .reduce((total, fee) => total + usd(fee.calculatedAmountUsd), 0n);
  expect(usd(plan.grossAmountUsd)).toBe(grossUsd);
  expect(usd(plan.payeeBorneFeesUsd)).toBe(sum('payee'));
  expect(usd(plan.payerBorneFeesUsd)).toBe(sum('payer'));
  expect(usd(plan.netRecipientAmountUsd) + usd(plan.payeeBorneFeesUsd)).toBe(grossUsd);
  expect(usd(plan.payerTotalAmountUsd)).toBe(grossUsd + usd(plan.payerBorneFeesUsd));
  expect(usd(plan.totalFeesUsd)).toBe(sum('payer') + sum('payee'));
  expect(usd(plan.netRecipientAmountUsd)).toBeGreaterThanOrEqual(0n);
}
