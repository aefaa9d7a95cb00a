import { type Address, decodeFunctionData, getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app.ts';
import { TEST_FEE_ADDRESS as FEE_ADDRESS, legMaker } from '../../../test/legs.ts';
import { createChainClients } from '../../chains/clients.ts';
import { createChainRegistry } from '../../chains/registry.ts';
import { sandboxNetwork } from '../../sandbox/network.ts';
import { batchPaymentsAbi } from '../abis.ts';
import { batchCalldata } from './batch-calldata.ts';
import type { ConversionQuote } from './conversion.ts';

// The part that reads nothing: fixed quotes (and payer state) in, the transactions out.
// On the sandbox network, the one whose feeds reach the native currency too.
const config = testConfig({ SANDBOX: 'true' });
const chains = createChainRegistry(config, sandboxNetwork(config.baseUrl));
const deps = { chains, clients: createChainClients({ config, chains }) };

const BATCH = getAddress(chains.contracts('sandbox').batchPayments ?? '');
const PAYER: Address = '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB';
const leg = legMaker(chains);
const USDC = chains.currency('USDC-sandbox')?.address ?? '';
const DAI = chains.currency('DAI-sandbox')?.address ?? '';

// $100 in USDC with a $1 fee, €50 in USDC, 10 plain USDC, 2 plain DAI, $40 in ETH.
const MIXED = [
  leg('USDC-sandbox', 10_000n, '1111111111111111', 100n, {
    feeAddress: FEE_ADDRESS,
    invoice: 'USD',
  }),
  leg('USDC-sandbox', 5_000n, '2222222222222222', 0n, { feeAddress: FEE_ADDRESS, invoice: 'EUR' }),
  leg('USDC-sandbox', 10_000_000n, '3333333333333333', 0n, { feeAddress: FEE_ADDRESS }),
  leg('DAI-sandbox', 2n * 10n ** 18n, '4444444444444444', 0n, { feeAddress: FEE_ADDRESS }),
  leg('ETH-sandbox', 4_000n, '5555555555555555', 0n, { feeAddress: FEE_ADDRESS, invoice: 'USD' }),
];
// At 1 USD = 1 USDC, 1 EUR = 1.08 USD, 1 ETH = 2,000 USD; rates set at 1,795,000,000.
const QUOTES: (ConversionQuote | null)[] = [
  { converted: 101_000_000n, rateTimestamp: 1_795_000_000n },
  { converted: 54_000_000n, rateTimestamp: 1_794_990_000n },
  null,
  null,
  { converted: 20_000_000_000_000_000n, rateTimestamp: 1_795_000_000n },
];

describe('batchCalldata with conversions', () => {
  it('orders ERC20 conversions, ERC20, then native conversions, and approves maxToSpend plus the plain totals', () => {
    const calldata = batchCalldata(deps, MIXED, BATCH, {
      batchFeeBps: 0n,
      quotes: QUOTES,
      state: null,
      payer: null,
    });
    expect(calldata).toMatchInlineSnapshot(`
      {
        "ERC20ApprovalTransactions": [
          {
            "chainId": 31337,
            "data": "0x095ea7b30000000000000000000000009fe46736679d2d9a65f0992f2272de9f3c7fa6e0000000000000000000000000000000000000000000000000000000000a0500a0",
            "to": "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
            "value": "0x0",
          },
          {
            "chainId": 31337,
            "data": "0x095ea7b30000000000000000000000009fe46736679d2d9a65f0992f2272de9f3c7fa6e00000000000000000000000000000000000000000000000001bc16d674ec80000",
            "to": "0x5FC8d32690cc91D4c39d9d3abcBD16989F875707",
            "value": "0x0",
          },
        ],
        "batchPaymentTransaction": {
          "chainId": 31337,
          "data": "0x92cddb9100000000000000000000000000000000000000000000000000000000000000600000000000000000000000000000000000000000000000000000000000000a00000000000000000000000000fb6916095ca1df60bb79ce92ce3ea74c37c5d3590000000000000000000000000000000000000000000000000000000000000003000000000000000000000000000000000000000000000000000000000000006000000000000000000000000000000000000000000000000000000000000004200000000000000000000000000000000000000000000000000000000000000780000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000400000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000000000000000000000000000000000000001c00000000000000000000000005aaeb6053f3e94c9b9a09f33669435e7ef1beaed00000000000000000000000000000000000000000000000000000002540be40000000000000000000000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000001400000000000000000000000000000000000000000000000000000000005f5e100000000000000000000000000000000000000000000000000000000000623f5e0000000000000000000000000000000000000000000000000000000000002a3000000000000000000000000000000000000000000000000000000000000000002000000000000000000000000775eb53d00dd0acd3ec1696472105d579b9b386b000000000000000000000000cf7ed3acca5a467e9e704c703e8d87f634fb0fc9000000000000000000000000000000000000000000000000000000000000000811111111111111110000000000000000000000000000000000000000000000000000000000000000000000005aaeb6053f3e94c9b9a09f33669435e7ef1beaed000000000000000000000000000000000000000000000000000000012a05f20000000000000000000000000000000000000000000000000000000000000000e0000000000000000000000000000000000000000000000000000000000000016000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003487440000000000000000000000000000000000000000000000000000000000002a300000000000000000000000000000000000000000000000000000000000000000300000000000000000000000017b4158805772ced11225e77339f90beb5aae968000000000000000000000000775eb53d00dd0acd3ec1696472105d579b9b386b000000000000000000000000cf7ed3acca5a467e9e704c703e8d87f634fb0fc900000000000000000000000000000000000000000000000000000000000000082222222222222222000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000000000400000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000000000000000000000000000000000000001a00000000000000000000000005aaeb6053f3e94c9b9a09f33669435e7ef1beaed000000000000000000000000000000000000000000000000000000000098968000000000000000000000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000001200000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000000000000cf7ed3acca5a467e9e704c703e8d87f634fb0fc9000000000000000000000000000000000000000000000000000000000000000833333333333333330000000000000000000000000000000000000000000000000000000000000000000000005aaeb6053f3e94c9b9a09f33669435e7ef1beaed0000000000000000000000000000000000000000000000001bc16d674ec8000000000000000000000000000000000000000000000000000000000000000000e0000000000000000000000000000000000000000000000000000000000000012000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000000000000000000000005fc8d32690cc91d4c39d9d3abcbd16989f8757070000000000000000000000000000000000000000000000000000000000000008444444444444444400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000040000000000000000000000000000000000000000000000000000000000000040000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000200000000000000000000000005aaeb6053f3e94c9b9a09f33669435e7ef1beaed00000000000000000000000000000000000000000000000000000000ee6b280000000000000000000000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000001400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004879b1216b0000000000000000000000000000000000000000000000000000000000000002a3000000000000000000000000000000000000000000000000000000000000000002000000000000000000000000775eb53d00dd0acd3ec1696472105d579b9b386b00000000000000000000000084555c9de7eca01743fea3524137ad828ea4e6f7000000000000000000000000000000000000000000000000000000000000000855555555555555550000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
          "to": "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
          "value": "0x4879b1216b0000",
        },
        "metadata": {
          "canMakePayment": null,
          "conversions": [
            {
              "conversionRate": "1",
              "invoiceCurrency": "USD",
              "paymentCurrencyId": "USDC-sandbox",
              "rateTimestamp": "2026-11-18T11:06:40.000Z",
            },
            {
              "conversionRate": "1.08",
              "invoiceCurrency": "EUR",
              "paymentCurrencyId": "USDC-sandbox",
              "rateTimestamp": "2026-11-18T08:20:00.000Z",
            },
            {
              "conversionRate": "0.0005",
              "invoiceCurrency": "USD",
              "paymentCurrencyId": "ETH-sandbox",
              "rateTimestamp": "2026-11-18T11:06:40.000Z",
            },
          ],
          "hasEnoughBalance": true,
          "hasEnoughGas": null,
          "insufficientTokens": [],
          "maxRateTimespan": 172800,
          "spending": [
            {
              "maxToSpend": "168.1",
              "paymentCurrencyId": "USDC-sandbox",
              "requiredAmount": "165",
              "tokenAddress": "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
              "tokenSymbol": "USDC",
            },
            {
              "maxToSpend": "2",
              "paymentCurrencyId": "DAI-sandbox",
              "requiredAmount": "2",
              "tokenAddress": "0x5FC8d32690cc91D4c39d9d3abcBD16989F875707",
              "tokenSymbol": "DAI",
            },
            {
              "maxToSpend": "0.0204",
              "paymentCurrencyId": "ETH-sandbox",
              "requiredAmount": "0.02",
              "tokenAddress": "0x84555c9de7eca01743fea3524137ad828ea4e6f7",
              "tokenSymbol": "ETH",
            },
          ],
        },
      }
    `);
  });

  it('decodes to the padded fiat amounts, the paths and the margins', () => {
    const { batchPaymentTransaction } = batchCalldata(deps, MIXED, BATCH, {
      batchFeeBps: 0n,
      quotes: QUOTES,
      state: null,
      payer: null,
    });
    const { args } = decodeFunctionData({
      abi: batchPaymentsAbi,
      data: batchPaymentTransaction.data,
    });
    expect(
      (args?.[0] ?? []).map((meta) => ({
        id: meta.paymentNetworkId,
        details: meta.requestDetails.map((d) => [
          d.requestAmount,
          d.feeAmount,
          d.path,
          d.maxToSpend,
          d.maxRateTimespan,
        ]),
      })),
    ).toMatchInlineSnapshot(`
      [
        {
          "details": [
            [
              10000000000n,
              100000000n,
              [
                "0x775EB53d00DD0Acd3EC1696472105d579B9b386b",
                "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
              ],
              103020000n,
              172800n,
            ],
            [
              5000000000n,
              0n,
              [
                "0x17B4158805772Ced11225E77339F90BeB5aAE968",
                "0x775EB53d00DD0Acd3EC1696472105d579B9b386b",
                "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
              ],
              55080000n,
              172800n,
            ],
          ],
          "id": 0n,
        },
        {
          "details": [
            [
              10000000n,
              0n,
              [
                "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
              ],
              0n,
              0n,
            ],
            [
              2000000000000000000n,
              0n,
              [
                "0x5FC8d32690cc91D4c39d9d3abcBD16989F875707",
              ],
              0n,
              0n,
            ],
          ],
          "id": 2n,
        },
        {
          "details": [
            [
              4000000000n,
              0n,
              [
                "0x775EB53d00DD0Acd3EC1696472105d579B9b386b",
                "0x84555C9de7ECa01743feA3524137Ad828EA4E6F7",
              ],
              20400000000000000n,
              172800n,
            ],
          ],
          "id": 4n,
        },
      ]
    `);
    // 1.02 × the ETH quote, sent as value: the proxy gives back what it does not take.
    expect(BigInt(batchPaymentTransaction.value)).toBe(20_400_000_000_000_000n);
  });

  it('counts the batch fee on maxToSpend, skips an approval the wallet already gave, and names what is short', () => {
    const calldata = batchCalldata(deps, MIXED, BATCH, {
      batchFeeBps: 50n,
      quotes: QUOTES,
      state: {
        nativeBalance: 10n ** 16n,
        baseFee: 1_000_000_000n,
        tokens: new Map([
          [USDC.toLowerCase(), { balance: 10n ** 12n, allowance: 10n ** 12n }],
          [DAI.toLowerCase(), { balance: 10n ** 18n, allowance: 0n }],
        ]),
        extra: [],
      },
      payer: PAYER,
    });
    expect({
      approvals: calldata.ERC20ApprovalTransactions.map((tx) => tx.to),
      value: BigInt(calldata.batchPaymentTransaction.value),
      metadata: calldata.metadata,
    }).toMatchInlineSnapshot(`
      {
        "approvals": [
          "0x5FC8d32690cc91D4c39d9d3abcBD16989F875707",
        ],
        "metadata": {
          "canMakePayment": false,
          "conversions": [
            {
              "conversionRate": "1",
              "invoiceCurrency": "USD",
              "paymentCurrencyId": "USDC-sandbox",
              "rateTimestamp": "2026-11-18T11:06:40.000Z",
            },
            {
              "conversionRate": "1.08",
              "invoiceCurrency": "EUR",
              "paymentCurrencyId": "USDC-sandbox",
              "rateTimestamp": "2026-11-18T08:20:00.000Z",
            },
            {
              "conversionRate": "0.0005",
              "invoiceCurrency": "USD",
              "paymentCurrencyId": "ETH-sandbox",
              "rateTimestamp": "2026-11-18T11:06:40.000Z",
            },
          ],
          "hasEnoughBalance": false,
          "hasEnoughGas": false,
          "insufficientTokens": [
            {
              "available": "1",
              "paymentCurrencyId": "DAI-sandbox",
              "required": "2.01",
              "tokenAddress": "0x5FC8d32690cc91D4c39d9d3abcBD16989F875707",
              "tokenSymbol": "DAI",
            },
            {
              "available": "0.01",
              "paymentCurrencyId": "ETH-sandbox",
              "required": "0.020502",
              "tokenAddress": "0x84555c9de7eca01743fea3524137ad828ea4e6f7",
              "tokenSymbol": "ETH",
            },
          ],
          "maxRateTimespan": 172800,
          "spending": [
            {
              "maxToSpend": "168.9405",
              "paymentCurrencyId": "USDC-sandbox",
              "requiredAmount": "165.825",
              "tokenAddress": "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
              "tokenSymbol": "USDC",
            },
            {
              "maxToSpend": "2.01",
              "paymentCurrencyId": "DAI-sandbox",
              "requiredAmount": "2.01",
              "tokenAddress": "0x5FC8d32690cc91D4c39d9d3abcBD16989F875707",
              "tokenSymbol": "DAI",
            },
            {
              "maxToSpend": "0.020502",
              "paymentCurrencyId": "ETH-sandbox",
              "requiredAmount": "0.0201",
              "tokenAddress": "0x84555c9de7eca01743fea3524137ad828ea4e6f7",
              "tokenSymbol": "ETH",
            },
          ],
        },
        "value": 20502000000000000n,
      }
    `);
  });
});
