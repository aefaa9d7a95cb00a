import { type Address, getContractAddress } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { MULTICALL3_ADDRESS } from '../chains/contracts.ts';

/**
 * The sandbox chain is deployed the same way every time: the first test wallet deploys the
 * contracts in a fixed order from nonce 0, so every address is known before the chain starts
 * and the currency registry can name them without asking it.
 */

/** The well-known development mnemonic: its keys are public and hold value on no real chain. */
const SANDBOX_MNEMONIC = 'test test test test test test test test test test test junk';
const SANDBOX_WALLET_COUNT = 5;

export interface SandboxWallet {
  readonly index: number;
  readonly address: Address;
  readonly privateKey: `0x${string}`;
}

export function sandboxWallets(count = SANDBOX_WALLET_COUNT): SandboxWallet[] {
  return Array.from({ length: count }, (_, index) => mnemonicWallet(index));
}

function mnemonicWallet(index: number): SandboxWallet {
  const account = mnemonicToAccount(SANDBOX_MNEMONIC, { addressIndex: index });
  const key = account.getHdKey().privateKey;
  if (!key) throw new Error('no private key');
  return { index, address: account.address, privateKey: `0x${Buffer.from(key).toString('hex')}` };
}

/**
 * The sandbox's Chainlink feeds (AggregatorMock): each prices `input` in `output` with 8
 * decimals, as Chainlink's do. Tokens and the native currency are priced in USD, and the other
 * fiat currencies in USD too, so every fiat invoice reaches every sandbox token through USD.
 */
export const SANDBOX_AGGREGATORS = [
  { name: 'aggregatorUsdcUsd', input: 'USDC', output: 'USD', rate: 100_000_000n },
  { name: 'aggregatorUsdtUsd', input: 'USDT', output: 'USD', rate: 100_000_000n },
  { name: 'aggregatorDaiUsd', input: 'DAI', output: 'USD', rate: 100_000_000n },
  { name: 'aggregatorEthUsd', input: 'ETH', output: 'USD', rate: 200_000_000_000n },
  { name: 'aggregatorEurUsd', input: 'EUR', output: 'USD', rate: 108_000_000n },
  { name: 'aggregatorGbpUsd', input: 'GBP', output: 'USD', rate: 127_000_000n },
  { name: 'aggregatorCnyUsd', input: 'CNY', output: 'USD', rate: 14_000_000n },
  { name: 'aggregatorJpyUsd', input: 'JPY', output: 'USD', rate: 670_000n },
] as const;

/** Deployment order: each entry is deployed by wallet 0 at the nonce of its position. */
const SANDBOX_DEPLOYMENTS = [
  'erc20FeeProxy',
  'ethFeeProxy',
  'batchPayments',
  'usdc',
  'usdt',
  'dai',
  'tst',
  'multicall3Deployer',
  'chainlinkConversionPath',
  'erc20ConversionProxy',
  'ethConversionProxy',
  ...SANDBOX_AGGREGATORS.map((feed) => feed.name),
  'recurringPaymentProxy',
  'spokePool',
  'acrossHandler',
  // Commerce payments (contracts.md §5): the escrow, its two collectors, then the wrapper.
  'authCaptureEscrow',
  'preApprovalPaymentCollector',
  'operatorRefundCollector',
  'commerceEscrowWrapper',
] as const;

type SandboxContract = (typeof SANDBOX_DEPLOYMENTS)[number];

export type SandboxAddresses = Readonly<Record<SandboxContract | 'multicall3', Address>>;

/**
 * The sandbox's relayer: holds `RELAYER_ROLE` on the sandbox's ERC20RecurringPaymentProxy, so
 * the recurring-payout executor triggers payments with it. Account 19 of the development
 * mnemonic: the local chain funds it with ether as it funds every account of the mnemonic, and
 * no test wallet (at most the first 16) shares it, so its nonces are the executor's alone.
 * Address 0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199.
 */
const SANDBOX_RELAYER_INDEX = 19;

export function sandboxRelayer(): SandboxWallet {
  return mnemonicWallet(SANDBOX_RELAYER_INDEX);
}

/**
 * The local bridge's relayer (src/sandbox/bridge-relayer.ts): fills Across deposits on the
 * destination chain with its own tokens, which every local chain mints it at start, and is the
 * SpokePool's `refunder`. Account 18 of the development mnemonic, for the same reasons as the
 * sandbox relayer's 19: funded with ether, shared with no test wallet, its nonces its own.
 * Address 0xdD2FD4581271e230360230F9337D5c0430Bf44C0.
 */
const BRIDGE_RELAYER_INDEX = 18;

export function sandboxBridgeRelayer(): SandboxWallet {
  return mnemonicWallet(BRIDGE_RELAYER_INDEX);
}

/**
 * The sandbox's commerce operator: the server's when `COMMERCE_OPERATOR_KEY` is unset, on the
 * sandbox chains only (src/commerce/operator.ts). It captures, voids and refunds the sandbox's
 * commerce payments, and funds refunds with the test tokens every local chain mints it at start.
 * Account 17 of the development mnemonic, for the relayers' reasons. Address
 * 0xbDA5747bFD65F08deb54cb465eB87D40e51B197E.
 */
const COMMERCE_OPERATOR_INDEX = 17;

export function sandboxCommerceOperator(): SandboxWallet {
  return mnemonicWallet(COMMERCE_OPERATOR_INDEX);
}

let cached: SandboxAddresses | undefined;

export function sandboxAddresses(): SandboxAddresses {
  if (cached) return cached;
  const deployer = sandboxWallets(1)[0]?.address;
  if (!deployer) throw new Error('no deployer');
  const addresses: Partial<Record<SandboxContract | 'multicall3', Address>> = {
    multicall3: MULTICALL3_ADDRESS,
  };
  SANDBOX_DEPLOYMENTS.forEach((name, nonce) => {
    addresses[name] = getContractAddress({ from: deployer, nonce: BigInt(nonce) });
  });
  cached = addresses as SandboxAddresses;
  return cached;
}
