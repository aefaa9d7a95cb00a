import { decodeFunctionData } from 'viem';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app.ts';
import { createChainClients } from '../../chains/clients.ts';
import { createChainRegistry } from '../../chains/registry.ts';
import { tronToEvm } from '../../chains/tron-address.ts';
import { tronBatchPaymentsAbi } from '../abis.ts';
import type { PaymentLeg } from '../transactions.ts';
import { buildTronBatchCalldata } from './tron-batch.ts';

const config = testConfig();
const chains = createChainRegistry(config);
const deps = { chains, clients: createChainClients({ config, chains }) };
const PAYEES = ['TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy', 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'];

function leg(currencyId: string, index: number, fee = 0n): PaymentLeg {
  const network = chains.network('tron');
  const currency = chains.currency(currencyId);
  if (!network || !currency) throw new Error(`${currencyId} is missing`);
  return {
    requestId: `01${String(index).repeat(64)}`,
    network,
    currency,
    payee: PAYEES[index % 2] ?? '',
    amount: 1_000_000n * BigInt(index + 1),
    paymentReference: `${index}`.repeat(16),
    feeAmount: fee,
    feeAddress: fee > 0n ? 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' : null,
  };
}

describe('buildTronBatchCalldata', () => {
  it('approves the batch contract for the token total, then pays every request in one call', () => {
    const legs = [leg('USDT-tron', 1, 10_000n), leg('USDT-tron', 2)];
    const calldata = buildTronBatchCalldata(deps, legs, {});
    expect(calldata).toMatchInlineSnapshot(`
      {
        "approvals": [
          {
            "callValue": 0,
            "chainId": 728126428,
            "contractAddress": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
            "data": "0x095ea7b3000000000000000000000000ab0ad52e1d1615ee6bc20ab8f2a4c498fb89fd1000000000000000000000000000000000000000000000000000000000004c7250",
            "feeLimit": 100000000,
            "functionSelector": "approve(address,uint256)",
            "parameters": [
              {
                "type": "address",
                "value": "TRZbXXuLd3HW5utzVysA3rpLgU7sVBrd1D",
              },
              {
                "type": "uint256",
                "value": "5010000",
              },
            ],
            "type": "tron",
          },
        ],
        "batchPaymentTransaction": {
          "callValue": 0,
          "chainId": 728126428,
          "contractAddress": "TRZbXXuLd3HW5utzVysA3rpLgU7sVBrd1D",
          "data": "0xc6e6d98b000000000000000000000000a614f803b6fd780986a42c78ec9c7f77e6ded13c00000000000000000000000000000000000000000000000000000000000000c00000000000000000000000000000000000000000000000000000000000000120000000000000000000000000000000000000000000000000000000000000018000000000000000000000000000000000000000000000000000000000000002600000000000000000000000005cbdd86a2fa8dc4bddd8a8f69dba48572eec07fb00000000000000000000000000000000000000000000000000000000000000020000000000000000000000005cbdd86a2fa8dc4bddd8a8f69dba48572eec07fb00000000000000000000000077944d19c052b73ee2286823aa83f8138cb7032f000000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000001e848000000000000000000000000000000000000000000000000000000000002dc6c00000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000000000000000000000000000000000000000800000000000000000000000000000000000000000000000000000000000000008111111111111111100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000082222222222222222000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000000027100000000000000000000000000000000000000000000000000000000000000000",
          "feeLimit": 340000000,
          "functionSelector": "batchERC20PaymentsWithReference(address,address[],uint256[],bytes[],uint256[],address)",
          "parameters": [
            {
              "type": "address",
              "value": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
            },
            {
              "type": "address[]",
              "value": [
                "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
                "TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy",
              ],
            },
            {
              "type": "uint256[]",
              "value": [
                "2000000",
                "3000000",
              ],
            },
            {
              "type": "bytes[]",
              "value": [
                "0x1111111111111111",
                "0x2222222222222222",
              ],
            },
            {
              "type": "uint256[]",
              "value": [
                "10000",
                "0",
              ],
            },
            {
              "type": "address",
              "value": "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
            },
          ],
          "type": "tron",
        },
        "metadata": {
          "requiredAmounts": [
            {
              "amount": "5.01",
              "currency": "USDT-tron",
            },
          ],
        },
      }
    `);
    expect(
      decodeFunctionData({
        abi: tronBatchPaymentsAbi,
        data: calldata.batchPaymentTransaction.data,
      }).args,
    ).toEqual([
      tronToEvm('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'),
      PAYEES.slice(0).reverse().map(tronToEvm),
      [2_000_000n, 3_000_000n],
      ['0x1111111111111111', '0x2222222222222222'],
      [10_000n, 0n],
      tronToEvm('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'),
    ]);
  });

  it('pays several tokens through the multi-token function, one approval per token', () => {
    const calldata = buildTronBatchCalldata(
      deps,
      [leg('USDT-tron', 0), leg('USDC-tron', 1), leg('USDT-tron', 2)],
      { wallet: 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy' },
    );
    expect(calldata.approvals.map((a) => [a.contractAddress, a.parameters[1]?.value])).toEqual([
      ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', '4000000'],
      ['TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', '2000000'],
    ]);
    expect(calldata.batchPaymentTransaction.functionSelector).toBe(
      'batchERC20PaymentsMultiTokensWithReference(address[],address[],uint256[],bytes[],uint256[],address)',
    );
    const { functionName, args } = decodeFunctionData({
      abi: tronBatchPaymentsAbi,
      data: calldata.batchPaymentTransaction.data,
    });
    expect(functionName).toBe('batchERC20PaymentsMultiTokensWithReference');
    expect(args[0]).toEqual(
      [
        'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
        'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8',
        'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      ].map(tronToEvm),
    );
    // No fee address: the payer is named, as for a single Tron payment.
    expect(args[5]).toBe(tronToEvm('TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy'));
  });

  it('refuses an EVM network', () => {
    const network = chains.network('base');
    const currency = chains.currency('USDC-base');
    if (!network || !currency) throw new Error('base');
    expect(() =>
      buildTronBatchCalldata(deps, [{ ...leg('USDT-tron', 0), network, currency }], {}),
    ).toThrow('Batch payments are not supported on base');
  });
});
