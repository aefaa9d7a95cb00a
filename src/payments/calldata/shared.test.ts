import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app.ts';
import { createChainClients } from '../../chains/clients.ts';
import { createChainRegistry } from '../../chains/registry.ts';
import type { EvmTransaction, PaymentLeg } from '../transactions.ts';
import { feeProxyOf, single } from './shared.ts';

const tx = (to: string): EvmTransaction => ({
  to: to as `0x${string}`,
  data: '0x',
  value: '0x0',
  chainId: 1,
});

describe('single', () => {
  it('puts the approvals first and points at the payment after them', () => {
    const answer = single(
      [
        tx('0x0000000000000000000000000000000000000001'),
        tx('0x0000000000000000000000000000000000000002'),
        tx('0x0000000000000000000000000000000000000003'),
      ],
      2,
      { requiredAmount: '1.5' },
    );
    expect(answer.metadata).toMatchInlineSnapshot(`
      {
        "approvalTransactionIndex": 0,
        "approvalTransactionsCount": 2,
        "needsApproval": true,
        "paymentTransactionIndex": 2,
        "requiredAmount": "1.5",
        "routeType": "samechain",
        "stepsRequired": 3,
        "transactionSponsorshipFeeUsd": null,
      }
    `);
  });

  it('leaves the approval fields out when nothing needs approving', () => {
    expect(
      single([tx('0x0000000000000000000000000000000000000001')], 0, { requiredAmount: '2' }),
    ).toMatchInlineSnapshot(`
      {
        "feeBundle": null,
        "metadata": {
          "needsApproval": false,
          "paymentTransactionIndex": 0,
          "requiredAmount": "2",
          "routeType": "samechain",
          "stepsRequired": 1,
          "transactionSponsorshipFeeUsd": null,
        },
        "paymentType": "single",
        "transactions": [
          {
            "chainId": 1,
            "data": "0x",
            "to": "0x0000000000000000000000000000000000000001",
            "value": "0x0",
          },
        ],
      }
    `);
  });
});

describe('feeProxyOf', () => {
  it('refuses a currency on a network without the proxy it needs', () => {
    const config = testConfig();
    const chains = createChainRegistry(config);
    const network = chains.network('tron');
    if (!network) throw new Error('tron is missing');
    const leg: PaymentLeg = {
      requestId: `01${'34'.repeat(32)}`,
      network,
      currency: chains.nativeCurrency('tron'),
      payee: 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy',
      amount: 1n,
      paymentReference: '0000000000000001',
      feeAmount: 0n,
      feeAddress: null,
    };
    const deps = { chains, clients: createChainClients({ config, chains }) };
    expect(() => feeProxyOf(deps, leg, 'ethFeeProxy')).toThrowErrorMatchingInlineSnapshot(
      `[AppError: Payments in TRX-tron are not supported on tron]`,
    );
  });
});
