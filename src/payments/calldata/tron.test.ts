import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app.ts';
import { createChainClients } from '../../chains/clients.ts';
import { createChainRegistry } from '../../chains/registry.ts';
import type { PaymentLeg } from '../transactions.ts';
import { buildTronCalldata } from './tron.ts';

const config = testConfig();
const chains = createChainRegistry(config);
const deps = { chains, clients: createChainClients({ config, chains }) };

function usdtLeg(feeAddress: string | null): PaymentLeg {
  const network = chains.network('tron');
  const currency = chains.currency('USDT-tron');
  if (!network || !currency) throw new Error('Tron USDT is missing');
  return {
    requestId: `01${'ef'.repeat(32)}`,
    network,
    currency,
    payee: 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy',
    amount: 5_000_000n,
    paymentReference: '00112233aabbccdd',
    feeAmount: feeAddress ? 50_000n : 0n,
    feeAddress,
  };
}

describe('buildTronCalldata', () => {
  it('approves the ERC20FeeProxy, then pays, as trigger-smart-contract calls', async () => {
    const leg = usdtLeg('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8');
    expect(await buildTronCalldata(deps, leg, {})).toMatchInlineSnapshot(`
      {
        "feeBundle": null,
        "metadata": {
          "approvalTransactionIndex": 0,
          "approvalTransactionsCount": 1,
          "needsApproval": true,
          "paymentTransactionIndex": 1,
          "requiredAmount": "5.05",
          "routeType": "samechain",
          "stepsRequired": 2,
          "transactionSponsorshipFeeUsd": null,
        },
        "paymentType": "single",
        "transactions": [
          {
            "callValue": 0,
            "chainId": 728126428,
            "contractAddress": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
            "data": "0x095ea7b30000000000000000000000001b6ca35d39842cf8fbe49000653a1505412da65900000000000000000000000000000000000000000000000000000000004d0e90",
            "feeLimit": 100000000,
            "functionSelector": "approve(address,uint256)",
            "parameters": [
              {
                "type": "address",
                "value": "TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd",
              },
              {
                "type": "uint256",
                "value": "5050000",
              },
            ],
            "type": "tron",
          },
          {
            "callValue": 0,
            "chainId": 728126428,
            "contractAddress": "TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd",
            "data": "0xc219a14d000000000000000000000000a614f803b6fd780986a42c78ec9c7f77e6ded13c00000000000000000000000077944d19c052b73ee2286823aa83f8138cb7032f00000000000000000000000000000000000000000000000000000000004c4b4000000000000000000000000000000000000000000000000000000000000000c0000000000000000000000000000000000000000000000000000000000000c3500000000000000000000000005cbdd86a2fa8dc4bddd8a8f69dba48572eec07fb000000000000000000000000000000000000000000000000000000000000000800112233aabbccdd000000000000000000000000000000000000000000000000",
            "feeLimit": 300000000,
            "functionSelector": "transferFromWithReferenceAndFee(address,address,uint256,bytes,uint256,address)",
            "parameters": [
              {
                "type": "address",
                "value": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
              },
              {
                "type": "address",
                "value": "TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy",
              },
              {
                "type": "uint256",
                "value": "5000000",
              },
              {
                "type": "bytes",
                "value": "0x00112233aabbccdd",
              },
              {
                "type": "uint256",
                "value": "50000",
              },
              {
                "type": "address",
                "value": "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
              },
            ],
            "type": "tron",
          },
        ],
      }
    `);
  });

  it("names the payer's wallet as fee address when the request has none, as the SDK does", async () => {
    const answer = await buildTronCalldata(deps, usdtLeg(null), {
      wallet: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL',
    });
    expect(answer.transactions[1]).toMatchInlineSnapshot(`
      {
        "callValue": 0,
        "chainId": 728126428,
        "contractAddress": "TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd",
        "data": "0xc219a14d000000000000000000000000a614f803b6fd780986a42c78ec9c7f77e6ded13c00000000000000000000000077944d19c052b73ee2286823aa83f8138cb7032f00000000000000000000000000000000000000000000000000000000004c4b4000000000000000000000000000000000000000000000000000000000000000c000000000000000000000000000000000000000000000000000000000000000000000000000000000000000008840e6c55b9ada326d211d818c34a994aeced808000000000000000000000000000000000000000000000000000000000000000800112233aabbccdd000000000000000000000000000000000000000000000000",
        "feeLimit": 300000000,
        "functionSelector": "transferFromWithReferenceAndFee(address,address,uint256,bytes,uint256,address)",
        "parameters": [
          {
            "type": "address",
            "value": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
          },
          {
            "type": "address",
            "value": "TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy",
          },
          {
            "type": "uint256",
            "value": "5000000",
          },
          {
            "type": "bytes",
            "value": "0x00112233aabbccdd",
          },
          {
            "type": "uint256",
            "value": "0",
          },
          {
            "type": "address",
            "value": "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
          },
        ],
        "type": "tron",
      }
    `);
  });

  it('names the zero account when neither the request nor the payer has an address', async () => {
    const answer = await buildTronCalldata(deps, usdtLeg(null), {});
    expect(answer.transactions[1]).toMatchInlineSnapshot(`
      {
        "callValue": 0,
        "chainId": 728126428,
        "contractAddress": "TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd",
        "data": "0xc219a14d000000000000000000000000a614f803b6fd780986a42c78ec9c7f77e6ded13c00000000000000000000000077944d19c052b73ee2286823aa83f8138cb7032f00000000000000000000000000000000000000000000000000000000004c4b4000000000000000000000000000000000000000000000000000000000000000c000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000800112233aabbccdd000000000000000000000000000000000000000000000000",
        "feeLimit": 300000000,
        "functionSelector": "transferFromWithReferenceAndFee(address,address,uint256,bytes,uint256,address)",
        "parameters": [
          {
            "type": "address",
            "value": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
          },
          {
            "type": "address",
            "value": "TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy",
          },
          {
            "type": "uint256",
            "value": "5000000",
          },
          {
            "type": "bytes",
            "value": "0x00112233aabbccdd",
          },
          {
            "type": "uint256",
            "value": "0",
          },
          {
            "type": "address",
            "value": "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb",
          },
        ],
        "type": "tron",
      }
    `);
  });
});

describe('buildTronCalldata with fee legs', () => {
  it('approves the payment and its fee legs together, then pays each leg after the payee', async () => {
    const leg = usdtLeg(null);
    const fees = [
      {
        recipient: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
        amount: 25_000n,
        paymentReference: 'aa'.repeat(8),
      },
    ];
    const built = await buildTronCalldata(deps, leg, {}, fees);
    expect(built.metadata).toMatchObject({
      stepsRequired: 3,
      paymentTransactionIndex: 1,
      requiredAmount: '5.025',
    });
    const [approve, , fee] = built.transactions;
    expect(approve && 'parameters' in approve && approve.parameters[1]).toEqual({
      type: 'uint256',
      value: '5025000',
    });
    expect(fee && 'parameters' in fee && fee.parameters).toMatchInlineSnapshot(`
      [
        {
          "type": "address",
          "value": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
        },
        {
          "type": "address",
          "value": "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
        },
        {
          "type": "uint256",
          "value": "25000",
        },
        {
          "type": "bytes",
          "value": "0xaaaaaaaaaaaaaaaa",
        },
        {
          "type": "uint256",
          "value": "0",
        },
        {
          "type": "address",
          "value": "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb",
        },
      ]
    `);
  });
});
