import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app.ts';
import { createChainClients } from '../../chains/clients.ts';
import { createChainRegistry } from '../../chains/registry.ts';
import type { PaymentLeg } from '../transactions.ts';
import { buildNativeCalldata } from './native.ts';

// No wallet, so no chain read: the answer depends on the inputs alone.
const config = testConfig();
const chains = createChainRegistry(config);
const deps = { chains, clients: createChainClients({ config, chains }) };

function ethLeg(fee: { amount: bigint; address: string } | null): PaymentLeg {
  const network = chains.network('base');
  if (!network) throw new Error('base is missing');
  return {
    requestId: `01${'cd'.repeat(32)}`,
    network,
    currency: chains.nativeCurrency('base'),
    payee: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    amount: 100_000_000_000_000_000n,
    paymentReference: 'fedcba9876543210',
    feeAmount: fee?.amount ?? 0n,
    feeAddress: fee?.address ?? null,
  };
}

describe('buildNativeCalldata', () => {
  it('sends amount plus fee as value to the EthereumFeeProxy', async () => {
    const leg = ethLeg({
      amount: 1_000_000_000_000_000n,
      address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    });
    expect(await buildNativeCalldata(deps, leg, {})).toMatchInlineSnapshot(`
      {
        "feeBundle": null,
        "metadata": {
          "needsApproval": false,
          "paymentTransactionIndex": 0,
          "requiredAmount": "0.101",
          "routeType": "samechain",
          "stepsRequired": 1,
          "transactionSponsorshipFeeUsd": null,
        },
        "paymentType": "single",
        "transactions": [
          {
            "chainId": 8453,
            "data": "0xb868980b0000000000000000000000005aaeb6053f3e94c9b9a09f33669435e7ef1beaed000000000000000000000000000000000000000000000000000000000000008000000000000000000000000000000000000000000000000000038d7ea4c68000000000000000000000000000fb6916095ca1df60bb79ce92ce3ea74c37c5d3590000000000000000000000000000000000000000000000000000000000000008fedcba9876543210000000000000000000000000000000000000000000000000",
            "to": "0xd9C3889eB8DA6ce449bfFE3cd194d08A436e96f2",
            "value": "0x166d2f702508000",
          },
        ],
      }
    `);
  });

  it('sends the amount alone, with the zero fee address, when the request has no fee', async () => {
    expect(await buildNativeCalldata(deps, ethLeg(null), {})).toMatchInlineSnapshot(`
      {
        "feeBundle": null,
        "metadata": {
          "needsApproval": false,
          "paymentTransactionIndex": 0,
          "requiredAmount": "0.1",
          "routeType": "samechain",
          "stepsRequired": 1,
          "transactionSponsorshipFeeUsd": null,
        },
        "paymentType": "single",
        "transactions": [
          {
            "chainId": 8453,
            "data": "0xb868980b0000000000000000000000005aaeb6053f3e94c9b9a09f33669435e7ef1beaed0000000000000000000000000000000000000000000000000000000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000008fedcba9876543210000000000000000000000000000000000000000000000000",
            "to": "0xd9C3889eB8DA6ce449bfFE3cd194d08A436e96f2",
            "value": "0x16345785d8a0000",
          },
        ],
      }
    `);
  });
});
