import { encodeFunctionData, getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app.ts';
import { createChainClients } from '../../chains/clients.ts';
import { createChainRegistry } from '../../chains/registry.ts';
import { erc20Abi } from '../abis.ts';
import { type ConversionLeg, conversionCalldata, maxToSpendOf, padFiat } from './conversion.ts';

// The part that reads nothing: a fixed quote in, the transactions out.
const config = testConfig();
const chains = createChainRegistry(config);
const deps = { chains, clients: createChainClients({ config, chains }) };

function leg(network: string, invoice: string, payment: string): ConversionLeg {
  const found = chains.network(network);
  const invoiceCurrency = chains.currency(invoice);
  const currency = chains.currency(payment);
  if (!found || !invoiceCurrency || !currency) throw new Error('missing currency');
  return {
    requestId: `01${'cd'.repeat(32)}`,
    network: found,
    invoiceCurrency,
    currency,
    payee: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    amount: 10_000n,
    paymentReference: '0123456789abcdef',
    // 2.50 of the invoice's fiat, in the conversion's 8 decimals.
    feeAmount: padFiat(250n, invoiceCurrency),
    feeAddress: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  };
}

describe('conversion amounts', () => {
  it('pads fiat base units to the proxies’ 8 decimals', () => {
    const usd = chains.currency('USD');
    const jpy = chains.currency('JPY');
    if (!usd || !jpy) throw new Error('fiat missing');
    expect(padFiat(1_000n, usd)).toBe(1_000_000_000n);
    expect(padFiat(1_000n, jpy)).toBe(100_000_000_000n);
  });

  it('lets the proxy take 2 % more than the quote, rounded up', () => {
    expect(maxToSpendOf(100_000_000n)).toBe(102_000_000n);
    expect(maxToSpendOf(1n)).toBe(2n);
    expect(maxToSpendOf(0n)).toBe(0n);
  });
});

describe('conversionCalldata', () => {
  it('approves the Erc20ConversionProxy for maxToSpend, then pays EUR → USD → USDC', () => {
    const calldata = conversionCalldata(
      deps,
      leg('mainnet', 'EUR', 'USDC-mainnet'),
      { converted: 110_700_000n, rateTimestamp: 1_795_000_000n },
      null,
    );
    expect(calldata).toMatchInlineSnapshot(`
      {
        "feeBundle": null,
        "metadata": {
          "approvalTransactionIndex": 0,
          "approvalTransactionsCount": 1,
          "conversionRate": "1.08",
          "maxRateTimespan": 172800,
          "maxToSpend": "112.914",
          "needsApproval": true,
          "paymentTransactionIndex": 1,
          "rateTimestamp": "2026-11-18T11:06:40.000Z",
          "requiredAmount": "110.7",
          "routeType": "samechain",
          "stepsRequired": 2,
          "transactionSponsorshipFeeUsd": null,
        },
        "paymentType": "single",
        "transactions": [
          {
            "chainId": 1,
            "data": "0x095ea7b30000000000000000000000001550a8c4f4e5afc67ea07e8ac590fdcadb4bbfb10000000000000000000000000000000000000000000000000000000006baee50",
            "to": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
            "value": "0x0",
          },
          {
            "chainId": 1,
            "data": "0x3af2c0120000000000000000000000005aaeb6053f3e94c9b9a09f33669435e7ef1beaed00000000000000000000000000000000000000000000000000000002540be40000000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000000000000000000000000000000000000180000000000000000000000000000000000000000000000000000000000ee6b280000000000000000000000000fb6916095ca1df60bb79ce92ce3ea74c37c5d3590000000000000000000000000000000000000000000000000000000006baee50000000000000000000000000000000000000000000000000000000000002a300000000000000000000000000000000000000000000000000000000000000000300000000000000000000000017b4158805772ced11225e77339f90beb5aae968000000000000000000000000775eb53d00dd0acd3ec1696472105d579b9b386b000000000000000000000000a0b86991c6218b36c1d19d4a2e9eb0ce3606eb4800000000000000000000000000000000000000000000000000000000000000080123456789abcdef000000000000000000000000000000000000000000000000",
            "to": "0x1550A8C4F4E5afC67Ea07e8ac590fdcAdB4bBfb1",
            "value": "0x0",
          },
        ],
      }
    `);
  });

  it('answers 400 naming the route a network lacks (no EUR feed on Base)', () => {
    expect(() =>
      conversionCalldata(
        deps,
        leg('base', 'EUR', 'USDC-base'),
        { converted: 1n, rateTimestamp: 1n },
        null,
      ),
    ).toThrowErrorMatchingInlineSnapshot(
      `[AppError: No conversion route from EUR to USDC-base on base]`,
    );
  });
});

describe('conversionCalldata for a token that refuses to move a non-zero allowance (mainnet USDT)', () => {
  it('resets the conversion proxy’s leftover allowance to 0 before approving maxToSpend, as erc20.ts does', () => {
    // The 2 % margin of an earlier conversion payment is left as allowance: 0.2 USDT here.
    const calldata = conversionCalldata(
      deps,
      leg('mainnet', 'USD', 'USDT-mainnet'),
      { converted: 102_500_000n, rateTimestamp: 1_795_000_000n },
      { balance: 1_000_000_000n, allowance: 200_000n, nativeBalance: 10n ** 18n, baseFee: 1n },
    );
    const proxy = chains.contracts('mainnet').erc20ConversionProxy as string;
    const approve = (amount: bigint) =>
      encodeFunctionData({
        abi: erc20Abi,
        functionName: 'approve',
        args: [getAddress(proxy), amount],
      });
    expect(calldata.transactions.map((tx) => tx.data).slice(0, 2)).toEqual([
      approve(0n),
      approve(maxToSpendOf(102_500_000n)),
    ]);
    expect(calldata.metadata).toMatchObject({ needsApproval: true, approvalTransactionsCount: 2 });
  });
});
