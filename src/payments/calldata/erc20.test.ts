import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app.ts';
import { createChainClients } from '../../chains/clients.ts';
import { createChainRegistry } from '../../chains/registry.ts';
import type { PaymentLeg } from '../transactions.ts';
import { buildErc20Calldata } from './erc20.ts';

// No wallet, so no chain read: the answer depends on the inputs alone.
const config = testConfig();
const chains = createChainRegistry(config);
const deps = { chains, clients: createChainClients({ config, chains }) };

function usdcLeg(fee: { amount: bigint; address: string } | null): PaymentLeg {
  const network = chains.network('mainnet');
  const currency = chains.currency('USDC-mainnet');
  if (!network || !currency) throw new Error('mainnet USDC is missing');
  return {
    requestId: `01${'ab'.repeat(32)}`,
    network,
    currency,
    payee: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    amount: 12_500_000n,
    paymentReference: '0123456789abcdef',
    feeAmount: fee?.amount ?? 0n,
    feeAddress: fee?.address ?? null,
  };
}

describe('buildErc20Calldata', () => {
  it('approves the ERC20FeeProxy for amount plus fee, then pays with the fee address', async () => {
    const leg = usdcLeg({
      amount: 250_000n,
      address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    });
    expect(await buildErc20Calldata(deps, leg, {})).toMatchInlineSnapshot(`
      {
        "feeBundle": null,
        "metadata": {
          "approvalTransactionIndex": 0,
          "approvalTransactionsCount": 1,
          "needsApproval": true,
          "paymentTransactionIndex": 1,
          "requiredAmount": "12.75",
          "routeType": "samechain",
          "stepsRequired": 2,
          "transactionSponsorshipFeeUsd": null,
        },
        "paymentType": "single",
        "transactions": [
          {
            "chainId": 1,
            "data": "0x095ea7b3000000000000000000000000370de27fdb7d1ff1e1baa7d11c5820a324cf623c0000000000000000000000000000000000000000000000000000000000c28cb0",
            "to": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
            "value": "0x0",
          },
          {
            "chainId": 1,
            "data": "0xc219a14d000000000000000000000000a0b86991c6218b36c1d19d4a2e9eb0ce3606eb480000000000000000000000005aaeb6053f3e94c9b9a09f33669435e7ef1beaed0000000000000000000000000000000000000000000000000000000000bebc2000000000000000000000000000000000000000000000000000000000000000c0000000000000000000000000000000000000000000000000000000000003d090000000000000000000000000fb6916095ca1df60bb79ce92ce3ea74c37c5d35900000000000000000000000000000000000000000000000000000000000000080123456789abcdef000000000000000000000000000000000000000000000000",
            "to": "0x370DE27fdb7D1Ff1e1BaA7D11c5820a324Cf623C",
            "value": "0x0",
          },
        ],
      }
    `);
  });

  it('names the zero address as fee address when the request has no fee', async () => {
    expect(await buildErc20Calldata(deps, usdcLeg(null), {})).toMatchInlineSnapshot(`
      {
        "feeBundle": null,
        "metadata": {
          "approvalTransactionIndex": 0,
          "approvalTransactionsCount": 1,
          "needsApproval": true,
          "paymentTransactionIndex": 1,
          "requiredAmount": "12.5",
          "routeType": "samechain",
          "stepsRequired": 2,
          "transactionSponsorshipFeeUsd": null,
        },
        "paymentType": "single",
        "transactions": [
          {
            "chainId": 1,
            "data": "0x095ea7b3000000000000000000000000370de27fdb7d1ff1e1baa7d11c5820a324cf623c0000000000000000000000000000000000000000000000000000000000bebc20",
            "to": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
            "value": "0x0",
          },
          {
            "chainId": 1,
            "data": "0xc219a14d000000000000000000000000a0b86991c6218b36c1d19d4a2e9eb0ce3606eb480000000000000000000000005aaeb6053f3e94c9b9a09f33669435e7ef1beaed0000000000000000000000000000000000000000000000000000000000bebc2000000000000000000000000000000000000000000000000000000000000000c00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080123456789abcdef000000000000000000000000000000000000000000000000",
            "to": "0x370DE27fdb7D1Ff1e1BaA7D11c5820a324Cf623C",
            "value": "0x0",
          },
        ],
      }
    `);
  });
});
