import type { PaymentNetworkId } from './networks.ts';

/**
 * Where the Request payment contracts live (contracts.md §1, §2, §10.1). Addresses are facts;
 * config may override them per network (`CONTRACTS_<NETWORK>`), which is how a local chain
 * stands in for a real one in tests.
 */
export interface ContractSet {
  /** ERC20FeeProxy 0.2.0: `transferFromWithReferenceAndFee`. EVM checksummed, base58 on Tron. */
  readonly erc20FeeProxy: string | null;
  /** EthereumFeeProxy 0.2.0: native payments. */
  readonly ethFeeProxy: string | null;
  /**
   * The batch contract: BatchConversionPayments 0.1.0 (`batchPayments`) on EVM networks;
   * on Tron, ERC20BatchPayments (`batchERC20PaymentsWithReference` and its multi-token form).
   */
  readonly batchPayments: string | null;
  /** Multicall3, for one-round-trip reads. */
  readonly multicall3: string | null;
  /** Erc20ConversionProxy: a fiat-denominated request paid in a token (contracts.md §3.1). */
  readonly erc20ConversionProxy: string | null;
  /** EthConversionProxy 0.2.0: a fiat-denominated request paid in the native currency. */
  readonly ethConversionProxy: string | null;
  /** ChainlinkConversionPath: the rates the conversion proxies pay at (contracts.md §3.2). */
  readonly chainlinkConversionPath: string | null;
  /**
   * ERC20RecurringPaymentProxy (contracts.md §4): executes a payer's signed `SchedulePermit`.
   * Not deployed on Optimism or Tron.
   */
  readonly recurringPaymentProxy: string | null;
  /** Safe 1.4.1's singleton (the L1 build), what a Safe proxy delegates to (contracts.md §10.2). */
  readonly safeSingleton: string | null;
  /** Safe 1.4.1's SafeL2 singleton: the same, emitting an event per execution. */
  readonly safeL2Singleton: string | null;
  /** SafeProxyFactory 1.4.1: `createProxyWithNonce` makes a Safe. */
  readonly safeProxyFactory: string | null;
  /**
   * MultiSendCallOnly 1.4.1: a Safe delegatecalls its `multiSend(bytes)` to make several calls
   * in one Safe transaction (a payer Safe's approval, payment and fee legs).
   */
  readonly multiSendCallOnly: string | null;
  /** CompatibilityFallbackHandler 1.4.1, the fallback handler a new Safe is set up with. */
  readonly safeFallbackHandler: string | null;
  /**
   * Commerce payments (contracts.md §5): Request's ERC20CommerceEscrowWrapper, the payments'
   * entry point, and the AuthCaptureEscrow it wraps. On Base and Sepolia only.
   */
  readonly commerceEscrowWrapper: string | null;
  readonly authCaptureEscrow: string | null;
  /**
   * The escrow's token collectors: PreApprovalPaymentCollector pulls an authorization's funds
   * from the escrow's payer (the wrapper), OperatorRefundCollector a refund's from its operator
   * (the wrapper again). Unknown on Sepolia, so commerce is served on Base only there.
   */
  readonly preApprovalPaymentCollector: string | null;
  readonly operatorRefundCollector: string | null;
}

export const CONTRACT_KEYS = [
  'erc20FeeProxy',
  'ethFeeProxy',
  'batchPayments',
  'multicall3',
  'erc20ConversionProxy',
  'ethConversionProxy',
  'chainlinkConversionPath',
  'recurringPaymentProxy',
  'safeSingleton',
  'safeL2Singleton',
  'safeProxyFactory',
  'multiSendCallOnly',
  'safeFallbackHandler',
  'commerceEscrowWrapper',
  'authCaptureEscrow',
  'preApprovalPaymentCollector',
  'operatorRefundCollector',
] as const;

const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';
const BATCH = '0x3cF63891928B8CeebB81C95426600a18cd59C03f';
const ETH_FEE_PROXY = '0xfCFBcfc4f5A421089e3Df45455F7f4985FE2D6a8';
const ETH_CONVERSION = '0x7Ebf48a26253810629C191b56C3212Fd0D211c26';
const CONVERSION_PATH = '0x0818Ad7016138f0A40DFAe30F64a923c2A8F61bA';

/**
 * Safe 1.4.1 where Safe deployed it, the same address on every EVM network we serve
 * (contracts.md §10.2); Tron has none.
 */
export const SAFE_1_4_1 = {
  safeSingleton: '0x41675C099F32341bf84BFc5382aF534df5C7461a',
  safeL2Singleton: '0x29fcB43b46531BcA003ddC8FCB67FFE91900C762',
  safeProxyFactory: '0x4e1DCf7AD4e460CfD30791CCC4F9c8a4f820ec67',
  multiSendCallOnly: '0x9641d764fc13c8B624c04430C7356C1C7C8102e2',
  safeFallbackHandler: '0xfd0732Dc9E303f09fCEf3a7388Ad10A83459Ec99',
} as const;
const NO_COMMERCE = {
  commerceEscrowWrapper: null,
  authCaptureEscrow: null,
  preApprovalPaymentCollector: null,
  operatorRefundCollector: null,
} as const;
const NO_SAFE = {
  safeSingleton: null,
  safeL2Singleton: null,
  safeProxyFactory: null,
  multiSendCallOnly: null,
  safeFallbackHandler: null,
} as const;

/**
 * Typed as written, so the compiler knows which networks lack a contract (Tron has no
 * Multicall3 and no Safe; Optimism and Tron no recurring proxy): `DEPLOYED_CONTRACTS.tron.multicall3` is
 * `null`, not `string | null`.
 */
export const DEPLOYED_CONTRACTS = {
  mainnet: {
    erc20FeeProxy: '0x370DE27fdb7D1Ff1e1BaA7D11c5820a324Cf623C',
    ethFeeProxy: ETH_FEE_PROXY,
    batchPayments: BATCH,
    multicall3: MULTICALL3,
    erc20ConversionProxy: '0x1550A8C4F4E5afC67Ea07e8ac590fdcAdB4bBfb1',
    ethConversionProxy: ETH_CONVERSION,
    chainlinkConversionPath: '0xC5519f3fcECC8EC85caaF8836563dEe9a00080f9',
    recurringPaymentProxy: '0xF0Bebbc99E26Ba7F651E7Ff14e0D3029B0228880',
    ...SAFE_1_4_1,
    ...NO_COMMERCE,
  },
  'arbitrum-one': {
    erc20FeeProxy: '0x0DfbEe143b42B41eFC5A6F87bFD1fFC78c2f0aC9',
    ethFeeProxy: ETH_FEE_PROXY,
    batchPayments: BATCH,
    multicall3: MULTICALL3,
    erc20ConversionProxy: '0xA5186dec7dC1ec85B42A3cd2Dc8289e248530B07',
    ethConversionProxy: ETH_CONVERSION,
    chainlinkConversionPath: CONVERSION_PATH,
    recurringPaymentProxy: '0xC335f956e91faa1DC103f9B54f7009c470dc6EEf',
    ...SAFE_1_4_1,
    ...NO_COMMERCE,
  },
  optimism: {
    erc20FeeProxy: '0x399F5EE127ce7432E4921a61b8CF52b0af52cbfE',
    ethFeeProxy: '0xe11BF2fDA23bF0A98365e1A4c04A87C9339e8687',
    batchPayments: BATCH,
    multicall3: MULTICALL3,
    erc20ConversionProxy: '0x1550A8C4F4E5afC67Ea07e8ac590fdcAdB4bBfb1',
    ethConversionProxy: ETH_CONVERSION,
    chainlinkConversionPath: CONVERSION_PATH,
    recurringPaymentProxy: null,
    ...SAFE_1_4_1,
    ...NO_COMMERCE,
  },
  base: {
    erc20FeeProxy: '0x1892196E80C4c17ea5100Da765Ab48c1fE2Fb814',
    ethFeeProxy: '0xd9C3889eB8DA6ce449bfFE3cd194d08A436e96f2',
    batchPayments: '0x1aF3f22685AcdDc788B3730ed415912d8f654420',
    multicall3: MULTICALL3,
    erc20ConversionProxy: '0x8296D56321cf207925a7804E5A8E3F579838e6Ad',
    ethConversionProxy: '0xEdfD8386d5DE52072B4Ad8dC69BBD0bB89f9A1fb',
    chainlinkConversionPath: '0x3dF89c727eaDF67eeD7b4d09EC4F2b41f8Dec2ca',
    recurringPaymentProxy: '0xd2c3392e3e70F4CE033Cb39CC80B414aDdD64fFa',
    ...SAFE_1_4_1,
    commerceEscrowWrapper: '0x9A73b3774183d07d4a2b585B04982F2Ec672B03b',
    authCaptureEscrow: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff',
    preApprovalPaymentCollector: '0x1b77ABd71FCD21fbe2398AE821Aa27D1E6B94bC6',
    operatorRefundCollector: '0x934907bffd0901b6A21e398B9C53A4A38F02fa5d',
  },
  matic: {
    erc20FeeProxy: '0x0DfbEe143b42B41eFC5A6F87bFD1fFC78c2f0aC9',
    ethFeeProxy: ETH_FEE_PROXY,
    batchPayments: BATCH,
    multicall3: MULTICALL3,
    erc20ConversionProxy: '0xf0f49873C50765239F6f9534Ba13c4fe16eD5f2E',
    ethConversionProxy: ETH_CONVERSION,
    chainlinkConversionPath: CONVERSION_PATH,
    recurringPaymentProxy: '0xD3BD678f219439c2bcf602Beb07e601a91b8Cd3d',
    ...SAFE_1_4_1,
    ...NO_COMMERCE,
  },
  bsc: {
    erc20FeeProxy: '0x0DfbEe143b42B41eFC5A6F87bFD1fFC78c2f0aC9',
    ethFeeProxy: ETH_FEE_PROXY,
    batchPayments: BATCH,
    multicall3: MULTICALL3,
    erc20ConversionProxy: '0xbbd9c5D112343A4Aa2bc194245760CaeeaF118Be',
    ethConversionProxy: ETH_CONVERSION,
    chainlinkConversionPath: CONVERSION_PATH,
    recurringPaymentProxy: '0xbb0f20890E9e405f9D4c2e707590525ccAA3De16',
    ...SAFE_1_4_1,
    ...NO_COMMERCE,
  },
  tron: {
    erc20FeeProxy: 'TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd',
    ethFeeProxy: null,
    // ERC20BatchPayments (contracts.md §8), not BatchConversionPayments: its own two functions.
    batchPayments: 'TRZbXXuLd3HW5utzVysA3rpLgU7sVBrd1D',
    multicall3: null,
    erc20ConversionProxy: null,
    ethConversionProxy: null,
    chainlinkConversionPath: null,
    recurringPaymentProxy: null,
    ...NO_SAFE,
    ...NO_COMMERCE,
  },
  sepolia: {
    erc20FeeProxy: '0x399F5EE127ce7432E4921a61b8CF52b0af52cbfE',
    ethFeeProxy: '0xe11BF2fDA23bF0A98365e1A4c04A87C9339e8687',
    batchPayments: '0x67818703c92580c0e106e401F253E8A410A66f8B',
    multicall3: MULTICALL3,
    erc20ConversionProxy: '0xaD61121DAfAAe495095Cd466022b519Cb7503a4E',
    ethConversionProxy: '0xc861aE0Cd70b73b0C8F1D62Fa669E6D1d7D7e0aB',
    chainlinkConversionPath: '0x7c285b9F2dA5E2c10feA25C00Ce1aCB107F85475',
    recurringPaymentProxy: '0xb6C7448458d8616B00eb8f93883d0081Fa2aDec9',
    ...SAFE_1_4_1,
    commerceEscrowWrapper: '0xc9b2eCBc2bfb38908f0Ee59729875959A09E6Ea5',
    authCaptureEscrow: '0xF81E3F293c92CaCfc0d723d2D8183e39Cc3AEdC7',
    preApprovalPaymentCollector: null,
    operatorRefundCollector: null,
  },
} as const satisfies Readonly<Record<PaymentNetworkId, ContractSet>>;

export { MULTICALL3 as MULTICALL3_ADDRESS };
