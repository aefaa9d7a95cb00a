import { CurrencyManager } from '@requestnetwork/currency';
import { prepareBatchConversionPaymentTransaction } from '@requestnetwork/payment-processor';
import {
  type ClientTypes,
  ExtensionTypes,
  IdentityTypes,
  RequestLogicTypes,
} from '@requestnetwork/types';
import { decodeFunctionData, getAddress, type Hex, zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app.ts';
import { createChainClients } from '../../chains/clients.ts';
import { isNative } from '../../chains/currencies.ts';
import { createChainRegistry } from '../../chains/registry.ts';
import { AppError } from '../../errors.ts';
import { batchPaymentsAbi } from '../abis.ts';
import { paymentReference } from '../references.ts';
import type { PaymentLeg } from '../transactions.ts';
import { buildBatchCalldata } from './batch.ts';

/**
 * Our batch calldata against Request's own SDK (`@requestnetwork/payment-processor`), fed the
 * same requests: one request id, salt, payee, amount and fee each, from which both sides derive
 * the payment reference on their own. No wallet, so no chain read on our side either.
 */

const config = testConfig();
const chains = createChainRegistry(config);
const deps = { chains, clients: createChainClients({ config, chains }) };
const currencyManager = CurrencyManager.getDefault();

type EnrichedRequest = Parameters<typeof prepareBatchConversionPaymentTransaction>[0][number];

const FEE_ADDRESS = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const OTHER_FEE_ADDRESS = '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB';

interface Invoice {
  readonly currencyId: string;
  readonly requestId: string;
  readonly salt: string;
  readonly payee: string;
  readonly amount: bigint;
  /** A fee address with an amount, possibly 0 (the SDK tells "0" from no fee at all). */
  readonly fee?: { readonly amount: bigint; readonly address: string };
}

function invoice(currencyId: string, index: number, amount: bigint, fee?: Invoice['fee']): Invoice {
  const digit = index.toString(16);
  return {
    currencyId,
    requestId: `01${digit.repeat(64)}`,
    salt: `${digit}a`.repeat(8),
    payee: getAddress(`0x${`${digit}b`.repeat(20)}`),
    amount,
    ...(fee && { fee }),
  };
}

function ourLeg(input: Invoice): PaymentLeg {
  const currency = chains.currency(input.currencyId);
  const network = currency && chains.network(currency.network);
  if (!currency || !network) throw new Error(`${input.currencyId} is missing`);
  return {
    requestId: input.requestId,
    network,
    currency,
    payee: input.payee,
    amount: input.amount,
    paymentReference: paymentReference(input.requestId, input.salt, input.payee),
    feeAmount: input.fee?.amount ?? 0n,
    feeAddress: input.fee?.address ?? null,
  };
}

/** The request as the SDK holds it after creation: a fee-proxy payment network extension. */
function sdkRequest(input: Invoice): EnrichedRequest {
  const currency = chains.currency(input.currencyId);
  if (!currency || currency.network === 'fiat' || currency.network === 'sandbox') {
    throw new Error(`${input.currencyId} is not on a network the SDK knows`);
  }
  const native = isNative(currency);
  const pn = native
    ? ExtensionTypes.PAYMENT_NETWORK_ID.ETH_FEE_PROXY_CONTRACT
    : ExtensionTypes.PAYMENT_NETWORK_ID.ERC20_FEE_PROXY_CONTRACT;
  const payee = { type: IdentityTypes.TYPE.ETHEREUM_ADDRESS, value: input.payee };
  const request: ClientTypes.IRequestData = {
    requestId: input.requestId,
    version: '2.0.3',
    creator: payee,
    payee,
    currency: currency.symbol,
    currencyInfo: native
      ? { type: RequestLogicTypes.CURRENCY.ETH, value: currency.symbol, network: currency.network }
      : {
          type: RequestLogicTypes.CURRENCY.ERC20,
          value: currency.address,
          network: currency.network,
        },
    state: RequestLogicTypes.STATE.CREATED,
    expectedAmount: input.amount.toString(),
    timestamp: 1_700_000_000,
    events: [],
    extensionsData: [],
    extensions: {
      [pn]: {
        id: pn,
        type: ExtensionTypes.TYPE.PAYMENT_NETWORK,
        version: '0.2.0',
        events: [],
        values: {
          salt: input.salt,
          paymentAddress: input.payee,
          ...(input.fee && {
            feeAddress: input.fee.address,
            feeAmount: input.fee.amount.toString(),
          }),
        },
      },
    },
    balance: null,
    contentData: null,
    meta: null,
    pending: null,
  };
  return { paymentNetworkId: pn, request, paymentSettings: { maxToSpend: '0' } };
}

/**
 * The SDK called as we encode: no USD fee cap (so no paths to USD), and BatchConversionPayments
 * 0.1.0, the deployed version (left out, the SDK asks for the requests' payment network
 * version, 0.2.0, which the batch contract never had).
 */
const SDK_OPTIONS = {
  skipFeeUSDLimit: true,
  version: '0.1.0',
  conversion: { currency: { type: RequestLogicTypes.CURRENCY.ETH, value: 'ETH' }, currencyManager },
};

/** Both encodings of one batch. */
async function both(invoices: readonly Invoice[]) {
  const ours = (await buildBatchCalldata(deps, invoices.map(ourLeg), {})).batchPaymentTransaction;
  const sdk = prepareBatchConversionPaymentTransaction(invoices.map(sdkRequest), SDK_OPTIONS);
  return {
    ours: { to: ours.to, data: ours.data, value: BigInt(ours.value) },
    sdk: { to: getAddress(sdk.to), data: sdk.data as Hex, value: BigInt(sdk.value.toString()) },
  };
}

function feeAddressOf(data: Hex) {
  const { args } = decodeFunctionData({ abi: batchPaymentsAbi, data });
  return args?.[2];
}

const ETH = 10n ** 18n;

describe('batch calldata, byte for byte as Request’s SDK', () => {
  it('encodes two ERC20 requests with fees to one address identically', async () => {
    const { ours, sdk } = await both([
      invoice('USDC-mainnet', 1, 10_000_000n, { amount: 50_000n, address: FEE_ADDRESS }),
      invoice('DAI-mainnet', 2, 25n * 10n ** 17n, { amount: 10n ** 16n, address: FEE_ADDRESS }),
    ]);
    expect(ours).toEqual(sdk);
    expect(feeAddressOf(ours.data)).toBe(FEE_ADDRESS);
  });

  it('encodes two native requests naming a fee address identically, value included', async () => {
    const { ours, sdk } = await both([
      invoice('ETH-base', 3, ETH / 10n, { amount: 0n, address: FEE_ADDRESS }),
      invoice('ETH-base', 4, ETH / 4n, { amount: 0n, address: FEE_ADDRESS }),
    ]);
    expect(ours).toEqual(sdk);
    expect(ours.value).toBe(ETH / 10n + ETH / 4n);
  });

  it('encodes two native requests with fees identically, but sends the fees as value too', async () => {
    const fees = [ETH / 1000n, ETH / 500n];
    const { ours, sdk } = await both([
      invoice('ETH-mainnet', 5, ETH / 10n, { amount: fees[0] ?? 0n, address: FEE_ADDRESS }),
      invoice('ETH-mainnet', 6, ETH / 4n, { amount: fees[1] ?? 0n, address: FEE_ADDRESS }),
    ]);
    expect({ to: ours.to, data: ours.data }).toEqual({ to: sdk.to, data: sdk.data });
    // The SDK's value leaves the fees out, which the contract refuses ("Not enough funds").
    expect(ours.value).toBe(sdk.value + (fees[0] ?? 0n) + (fees[1] ?? 0n));
  });

  it('encodes an ERC20 and a native request identically, ERC20 first whatever the order', async () => {
    const { ours, sdk } = await both([
      invoice('POL-matic', 7, 3n * ETH, { amount: 0n, address: FEE_ADDRESS }),
      invoice('USDT-matic', 8, 4_000_000n, { amount: 20_000n, address: FEE_ADDRESS }),
      invoice('POL-matic', 9, 2n * ETH, { amount: 0n, address: FEE_ADDRESS }),
    ]);
    expect(ours).toEqual(sdk);
    const { args } = decodeFunctionData({ abi: batchPaymentsAbi, data: ours.data });
    expect((args?.[0] ?? []).map((meta) => meta.paymentNetworkId)).toEqual([2n, 3n]);
  });

  it('names the zero address, as the SDK, in a native batch with no fee address', async () => {
    const { ours, sdk } = await both([
      invoice('ETH-sepolia', 10, ETH),
      invoice('ETH-sepolia', 11, 2n * ETH),
    ]);
    expect(ours).toEqual(sdk);
    expect(feeAddressOf(ours.data)).toBe(zeroAddress);
  });

  it('names a payee, not the SDK’s zero address, in an ERC20 batch with no fee address', async () => {
    // The SDK's bytes would revert: the contract moves the batch fee with transferFrom even
    // when it is 0, and USDC refuses the zero address (test/e2e/batch-fees.test.ts shows it).
    const first = invoice('USDC-sepolia', 12, 1_000_000n);
    const { ours, sdk } = await both([first, invoice('USDT-sepolia', 13, 2_000_000n)]);
    expect(feeAddressOf(sdk.data)).toBe(zeroAddress);
    expect(feeAddressOf(ours.data)).toBe(first.payee);
    // Everything else is the SDK's: the requests, their order and paths, and the value.
    const decode = (data: Hex) => decodeFunctionData({ abi: batchPaymentsAbi, data }).args;
    expect(decode(ours.data)?.slice(0, 2)).toEqual(decode(sdk.data)?.slice(0, 2));
    expect({ to: ours.to, value: ours.value }).toEqual({ to: sdk.to, value: sdk.value });
  });

  it('refuses requests whose fees go to different addresses, which the SDK pays to the first', async () => {
    const invoices = [
      invoice('USDC-base', 14, 1_000_000n, { amount: 10_000n, address: FEE_ADDRESS }),
      invoice('USDC-base', 15, 2_000_000n, { amount: 20_000n, address: OTHER_FEE_ADDRESS }),
    ];
    const sdk = prepareBatchConversionPaymentTransaction(invoices.map(sdkRequest), SDK_OPTIONS);
    expect(feeAddressOf(sdk.data as Hex)).toBe(FEE_ADDRESS);
    const refusal = await buildBatchCalldata(deps, invoices.map(ourLeg), {}).catch((e) => e);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: 'batch_fee_addresses_differ' });
  });
});
