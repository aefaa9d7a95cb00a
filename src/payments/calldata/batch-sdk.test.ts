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
import { AppError } from '../../base/errors.ts';
import { createChainClients } from '../../chains/clients.ts';
import { isNative } from '../../chains/currencies.ts';
import { isSandboxNetwork } from '../../chains/networks.ts';
import { createChainRegistry } from '../../chains/registry.ts';
import { sandboxNetwork } from '../../sandbox/network.ts';
import { batchPaymentsAbi } from '../abis.ts';
import { paymentReference } from '../references.ts';
import type { PaymentLeg } from '../transactions.ts';
import { buildBatchCalldata } from './batch.ts';
import { batchCalldata } from './batch-calldata.ts';
import { type ConversionQuote, MAX_RATE_TIMESPAN, maxToSpendOf, padFiat } from './conversion.ts';

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
  /** A fiat invoice paid in `currencyId` at the rate: the fiat and what the chain quoted. */
  readonly fiat?: { readonly currency: string; readonly quote: ConversionQuote };
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
  const invoiceCurrency = input.fiat && chains.currency(input.fiat.currency);
  if (!currency || !network) throw new Error(`${input.currencyId} is missing`);
  return {
    ...(invoiceCurrency && { invoiceCurrency }),
    requestId: input.requestId,
    network,
    currency,
    payee: input.payee,
    amount: input.amount,
    paymentReference: paymentReference(input.requestId, input.salt, input.payee),
    // The SDK takes a fiat invoice's fee in its base units; our legs carry it in 8 decimals.
    feeAmount:
      invoiceCurrency && input.fee
        ? padFiat(input.fee.amount, invoiceCurrency)
        : (input.fee?.amount ?? 0n),
    feeAddress: input.fee?.address ?? null,
  };
}

/**
 * The request as the SDK holds it after creation: a fee-proxy payment network extension, or for
 * a fiat invoice an any-to-erc20 / any-to-eth one naming the network, the token it accepts and
 * our `maxRateTimespan`, paid with our `maxToSpend` (the SDK reads no rate: its caller says how
 * much it lets the batch take, and the SDK finds the path itself, from its own feed list).
 */
function sdkRequest(input: Invoice): EnrichedRequest {
  const currency = chains.currency(input.currencyId);
  if (!currency || currency.network === 'fiat' || isSandboxNetwork(currency.network)) {
    throw new Error(`${input.currencyId} is not on a network the SDK knows`);
  }
  const native = isNative(currency);
  const pn = input.fiat
    ? native
      ? ExtensionTypes.PAYMENT_NETWORK_ID.ANY_TO_ETH_PROXY
      : ExtensionTypes.PAYMENT_NETWORK_ID.ANY_TO_ERC20_PROXY
    : native
      ? ExtensionTypes.PAYMENT_NETWORK_ID.ETH_FEE_PROXY_CONTRACT
      : ExtensionTypes.PAYMENT_NETWORK_ID.ERC20_FEE_PROXY_CONTRACT;
  const payee = { type: IdentityTypes.TYPE.ETHEREUM_ADDRESS, value: input.payee };
  const token = {
    type: RequestLogicTypes.CURRENCY.ERC20,
    value: currency.address,
    network: currency.network,
  };
  const request: ClientTypes.IRequestData = {
    requestId: input.requestId,
    version: '2.0.3',
    creator: payee,
    payee,
    currency: input.fiat ? input.fiat.currency : currency.symbol,
    currencyInfo: input.fiat
      ? { type: RequestLogicTypes.CURRENCY.ISO4217, value: input.fiat.currency }
      : native
        ? {
            type: RequestLogicTypes.CURRENCY.ETH,
            value: currency.symbol,
            network: currency.network,
          }
        : token,
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
          ...(input.fiat && {
            network: currency.network,
            maxRateTimespan: MAX_RATE_TIMESPAN.toString(),
            ...(!native && { acceptedTokens: [currency.address] }),
          }),
        },
      },
    },
    balance: null,
    contentData: null,
    meta: null,
    pending: null,
  };
  const maxToSpend = input.fiat ? maxToSpendOf(input.fiat.quote.converted) : 0n;
  return {
    paymentNetworkId: pn,
    request,
    paymentSettings: {
      maxToSpend: maxToSpend.toString(),
      ...(input.fiat && !native && { currency: token, currencyManager }),
    },
  };
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
  const legs = invoices.map(ourLeg);
  // Fiat invoices take the quotes the chain would have answered (no chain here); the rest is
  // the builder as the API calls it.
  const ours = invoices.some((input) => input.fiat)
    ? batchCalldata(deps, legs, getAddress(chains.contracts('mainnet').batchPayments ?? ''), {
        batchFeeBps: 0n,
        quotes: invoices.map((input) => input.fiat?.quote ?? null),
        state: null,
        payer: null,
      }).batchPaymentTransaction
    : (await buildBatchCalldata(deps, legs, {})).batchPaymentTransaction;
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

  it('encodes fiat invoices paid in tokens under id 0, with the SDK’s own paths, before plain ones', async () => {
    const at = (converted: bigint): ConversionQuote => ({
      converted,
      rateTimestamp: 1_795_000_000n,
    });
    const fee = { amount: 0n, address: FEE_ADDRESS };
    const invoices = [
      invoice('USDC-mainnet', 1, 10_000n, { amount: 150n, address: FEE_ADDRESS }),
      invoice('USDT-mainnet', 2, 3_000_000n, fee),
      invoice('DAI-mainnet', 3, 25_050n, fee),
      invoice('USDC-mainnet', 4, 4_000n, fee),
      invoice('ETH-mainnet', 5, ETH / 100n, fee),
      invoice('DAI-mainnet', 6, 2_000n, fee),
    ];
    // USD → USDC, plain USDT, EUR → DAI, GBP → USDC, plain ETH, JPY → DAI.
    const fiat = [
      { currency: 'USD', quote: at(101_500_000n) },
      undefined,
      { currency: 'EUR', quote: at(270_540_000_000_000_000_000n) },
      { currency: 'GBP', quote: at(50_800_000n) },
      undefined,
      { currency: 'JPY', quote: at(134_000_000_000_000_000n) },
    ];
    const { ours, sdk } = await both(
      invoices.map((input, index) => {
        const of = fiat[index];
        return of ? { ...input, fiat: of } : input;
      }),
    );
    expect(ours).toEqual(sdk);
    const { args } = decodeFunctionData({ abi: batchPaymentsAbi, data: ours.data });
    const metas = args?.[0] ?? [];
    expect(metas.map((meta) => meta.paymentNetworkId)).toEqual([0n, 2n, 3n]);
    // The SDK found the same paths as ours: through USD for the other fiat.
    expect(metas[0]?.requestDetails.map((detail) => detail.path.length)).toEqual([2, 3, 3, 3]);
  });

  it('encodes a fiat invoice paid in the native currency under id 4, last, as the SDK does', async () => {
    // Our feeds reach the native currency on the sandbox network only, which the SDK does not
    // know: ours there against the SDK's on mainnet, the same in everything but the native
    // currency's hash ending the path (and the contract address).
    const sandbox = createChainRegistry(testConfig(), sandboxNetwork('http://127.0.0.1:8080'));
    const quote: ConversionQuote = { converted: ETH / 40n, rateTimestamp: 1_795_000_000n };
    const fee = { amount: 25n, address: FEE_ADDRESS };
    const ethInvoice = {
      ...invoice('ETH-mainnet', 7, 5_000n, fee),
      fiat: { currency: 'USD', quote },
    };
    const plain = invoice('ETH-mainnet', 8, ETH / 10n, fee);
    const sdk = prepareBatchConversionPaymentTransaction(
      [sdkRequest(ethInvoice), sdkRequest(plain)],
      SDK_OPTIONS,
    );
    const onSandbox = (input: Invoice): PaymentLeg => {
      const leg = ourLeg(input);
      const currency = sandbox.currency('ETH-sandbox');
      const network = sandbox.network('sandbox');
      if (!currency || !network) throw new Error('no sandbox');
      return { ...leg, currency, network };
    };
    const ours = batchCalldata(
      { chains: sandbox, clients: deps.clients },
      [onSandbox(ethInvoice), onSandbox(plain)],
      getAddress(sandbox.contracts('sandbox').batchPayments ?? ''),
      { batchFeeBps: 0n, quotes: [quote, null], state: null, payer: null },
    ).batchPaymentTransaction;
    const decode = (data: Hex) => decodeFunctionData({ abi: batchPaymentsAbi, data }).args;
    const sandboxEth = getAddress(sandbox.currency('ETH-sandbox')?.address ?? '');
    const mainnetEth = getAddress(chains.currency('ETH-mainnet')?.address ?? '');
    const asMainnet = JSON.parse(
      JSON.stringify(decode(ours.data), (_, v) =>
        typeof v === 'bigint' ? v.toString() : v === sandboxEth ? mainnetEth : v,
      ),
    );
    const theirs = JSON.parse(
      JSON.stringify(decode(sdk.data as Hex), (_, v) => (typeof v === 'bigint' ? v.toString() : v)),
    );
    expect(asMainnet).toEqual(theirs);
    expect(theirs[0].map((meta: { paymentNetworkId: string }) => meta.paymentNetworkId)).toEqual([
      '3',
      '4',
    ]);
    // The SDK's value: maxToSpend and the plain amount; ours adds the plain request's fee.
    expect(BigInt(ours.value)).toBe(BigInt(sdk.value.toString()) + 25n);
  });
});
