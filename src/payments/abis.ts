import { parseAbi } from 'viem';

/** The contract functions we encode and read (contracts.md §1, §2, §3, §10.1). */

export const erc20Abi = parseAbi([
  'function approve(address spender, uint256 amount) returns (bool)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function balanceOf(address owner) view returns (uint256)',
  'function decimals() view returns (uint8)',
]);

export const erc20FeeProxyAbi = parseAbi([
  'function transferFromWithReferenceAndFee(address _tokenAddress, address _to, uint256 _amount, bytes _paymentReference, uint256 _feeAmount, address _feeAddress)',
  'event TransferWithReferenceAndFee(address tokenAddress, address to, uint256 amount, bytes indexed paymentReference, uint256 feeAmount, address feeAddress)',
]);

export const ethFeeProxyAbi = parseAbi([
  'function transferWithReferenceAndFee(address _to, bytes _paymentReference, uint256 _feeAmount, address _feeAddress) payable',
  'event TransferWithReferenceAndFee(address to, uint256 amount, bytes indexed paymentReference, uint256 feeAmount, address feeAddress)',
]);

export const batchPaymentsAbi = parseAbi([
  'struct RequestDetail { address recipient; uint256 requestAmount; address[] path; bytes paymentReference; uint256 feeAmount; uint256 maxToSpend; uint256 maxRateTimespan; }',
  'struct MetaDetail { uint256 paymentNetworkId; RequestDetail[] requestDetails; }',
  'function batchPayments(MetaDetail[] metaDetails, address[][] pathsToUSD, address feeAddress) payable',
  'function batchFee() view returns (uint16)',
]);

/** Conversion payments (contracts.md §3). */
export const erc20ConversionProxyAbi = parseAbi([
  'function transferFromWithReferenceAndFee(address _to, uint256 _requestAmount, address[] _path, bytes _paymentReference, uint256 _feeAmount, address _feeAddress, uint256 _maxToSpend, uint256 _maxRateTimespan)',
  'event TransferWithConversionAndReference(uint256 amount, address currency, bytes indexed paymentReference, uint256 feeAmount, uint256 maxRateTimespan)',
]);

export const ethConversionProxyAbi = parseAbi([
  'function transferWithReferenceAndFee(address _to, uint256 _requestAmount, address[] _path, bytes _paymentReference, uint256 _feeAmount, address _feeAddress, uint256 _maxRateTimespan) payable',
  'event TransferWithConversionAndReference(uint256 amount, address currency, bytes indexed paymentReference, uint256 feeAmount, uint256 maxRateTimespan)',
]);

export const chainlinkConversionPathAbi = parseAbi([
  'function getConversion(uint256 _amountIn, address[] _path) view returns (uint256 result, uint256 oldestRateTimestamp)',
  'function getRate(address[] _path) view returns (uint256 rate, uint256 oldestRateTimestamp, uint256 decimals)',
]);

export const multicall3Abi = parseAbi([
  'function getEthBalance(address addr) view returns (uint256 balance)',
  'function getBasefee() view returns (uint256 basefee)',
]);

/** ERC20BatchPayments on Tron: the two ERC20 functions of the legacy BatchPayments (§2.2). */
export const tronBatchPaymentsAbi = parseAbi([
  'function batchERC20PaymentsWithReference(address _tokenAddress, address[] _recipients, uint256[] _amounts, bytes[] _paymentReferences, uint256[] _feeAmounts, address _feeAddress)',
  'function batchERC20PaymentsMultiTokensWithReference(address[] _tokenAddresses, address[] _recipients, uint256[] _amounts, bytes[] _paymentReferences, uint256[] _feeAmounts, address _feeAddress)',
]);

/** Tron's ABI-style signatures, for trigger-smart-contract. */
export const TRON_SELECTORS = {
  approve: 'approve(address,uint256)',
  transferFromWithReferenceAndFee:
    'transferFromWithReferenceAndFee(address,address,uint256,bytes,uint256,address)',
  batchERC20PaymentsWithReference:
    'batchERC20PaymentsWithReference(address,address[],uint256[],bytes[],uint256[],address)',
  batchERC20PaymentsMultiTokensWithReference:
    'batchERC20PaymentsMultiTokensWithReference(address[],address[],uint256[],bytes[],uint256[],address)',
} as const;

/** `batchPayments` meta ids (contracts.md §2.2); the contract wants native conversion last. */
export const BATCH_ERC20_CONVERSION = 0n;
export const BATCH_ERC20_MULTI_TOKEN = 2n;
export const BATCH_NATIVE = 3n;
export const BATCH_NATIVE_CONVERSION = 4n;
