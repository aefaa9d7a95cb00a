import {
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  custom,
  defineChain,
  type Hex,
  type PublicClient,
  parseAbi,
  parseEther,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { MULTICALL3_ADDRESS } from '../chains/contracts.ts';
import { requestCurrencyHash } from '../chains/currencies.ts';
import { SANDBOX_NETWORK } from '../chains/networks.ts';
import type { NotifyingProvider } from '../chains/provider-transport.ts';
import {
  SANDBOX_AGGREGATORS,
  type SandboxAddresses,
  type SandboxWallet,
  sandboxAddresses,
  sandboxBridgeRelayer,
  sandboxCommerceOperator,
  sandboxRelayer,
  sandboxWallets,
} from './addresses.ts';
import { loadArtifact } from './artifacts.ts';
import { type Deployer, deployCommerce } from './commerce-chain.ts';
import { installSafe } from './safe.ts';

/**
 * A local EVM (Hardhat 3's EDR, in process) with the real Request contracts and test tokens
 * deployed at the sandbox's fixed addresses, the local bridge (Across's SpokePool and
 * MulticallHandler, ours: contracts/Across.sol), the commerce escrow and its wrapper (ours:
 * contracts/commerce/), Safe 1.4.1 at its canonical ones, and test
 * wallets (and the bridge relayer) funded with every token. The
 * tests use it with the chain id of whichever network it stands in for; `npm start` runs one
 * as the `sandbox` network.
 */

/** An EIP-1193 provider; the chain in process also tells of its subscriptions (`on`). */
export type Eip1193Provider = NotifyingProvider;

export interface LocalChain {
  readonly chainId: number;
  readonly chain: Chain;
  readonly provider: Eip1193Provider;
  readonly client: PublicClient;
  readonly addresses: SandboxAddresses;
  /**
   * Wallet 0 deployed the contracts; every wallet holds ETH and every test token, and so does
   * the bridge relayer (addresses.ts's `sandboxBridgeRelayer`), which is no wallet of these.
   */
  readonly wallets: readonly SandboxWallet[];
  snapshot(): Promise<Hex>;
  revert(id: Hex): Promise<void>;
  close(): Promise<void>;
}

/** Test tokens each wallet starts with, in whole tokens. */
const TOKEN_FUNDING = 1_000_000n;
const ERC20 = parseAbi([
  'function transfer(address to, uint256 amount) returns (bool)',
  'function mint(address to, uint256 amount)',
]);

export async function startLocalChain(options: {
  chainId: number;
  walletCount?: number;
  /**
   * Answer a transaction that reverts with its hash, as a public node does (the receipt says
   * it failed), rather than with Hardhat's error; the transaction is mined either way.
   */
  revertsInReceipts?: boolean;
}): Promise<LocalChain> {
  // Hardhat is a dev dependency: loaded only when a local chain is asked for.
  const { createHardhatRuntimeEnvironment } = await import('hardhat/hre');
  const local = {
    type: 'edr-simulated' as const,
    chainId: options.chainId,
    ...(options.revertsInReceipts && { throwOnTransactionFailures: false }),
  };
  const hre = await createHardhatRuntimeEnvironment({ networks: { local } }, {}, process.cwd());
  const connection = await hre.network.connect('local');
  const provider = connection.provider as unknown as Eip1193Provider;
  const chain = defineChain({
    id: options.chainId,
    name: `local-${options.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
  });
  const client = createPublicClient({
    chain,
    transport: custom(provider, { retryCount: 0 }),
  }) as PublicClient;
  const wallets = sandboxWallets(options.walletCount);
  const addresses = await deploy(provider, chain, client, wallets);

  return {
    chainId: options.chainId,
    chain,
    provider,
    client,
    addresses,
    wallets,
    snapshot: async () => (await provider.request({ method: 'evm_snapshot' })) as Hex,
    revert: async (id) => {
      const ok = await provider.request({ method: 'evm_revert', params: [id] });
      if (ok !== true) throw new Error(`could not revert to snapshot ${id}`);
    },
    close: async () => {
      await connection.close();
    },
  };
}

async function deploy(
  provider: Eip1193Provider,
  chain: Chain,
  client: PublicClient,
  wallets: readonly SandboxWallet[],
): Promise<SandboxAddresses> {
  const deployer = wallets[0];
  if (!deployer) throw new Error('no deployer wallet');
  const wallet = createWalletClient({
    account: privateKeyToAccount(deployer.privateKey),
    chain,
    transport: custom(provider, { retryCount: 0 }),
  });
  const expected = sandboxAddresses();

  const create: Deployer = async (name, args, at) => {
    const artifact = loadArtifact(name);
    const hash = await wallet.deployContract({
      abi: artifact.abi,
      bytecode: artifact.bytecode,
      args,
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.contractAddress?.toLowerCase() !== at.toLowerCase()) {
      throw new Error(`${name} deployed at ${receipt.contractAddress}, expected ${at}`);
    }
  };

  await create('ERC20FeeProxy', [], expected.erc20FeeProxy);
  await create('EthereumFeeProxy', [], expected.ethFeeProxy);
  // Its conversion contracts come later in the order; their addresses are known already.
  await create(
    'BatchConversionPayments',
    [
      expected.erc20FeeProxy,
      expected.ethFeeProxy,
      expected.erc20ConversionProxy,
      expected.ethConversionProxy,
      expected.chainlinkConversionPath,
      deployer.address,
    ],
    expected.batchPayments,
  );
  await create('UsdtFake', [], expected.usdc);
  await create('UsdtFake', [], expected.usdt);
  await create('TestERC20', [10n ** 30n], expected.dai);
  await create('TestToken', [deployer.address], expected.tst);
  // Multicall3 is stateless: its code, copied to the canonical address, is the real thing.
  await create('Multicall3', [], expected.multicall3Deployer);
  const code = await client.getCode({ address: expected.multicall3Deployer });
  await provider.request({
    method: 'hardhat_setCode',
    params: [MULTICALL3_ADDRESS, code],
  });
  // Safe 1.4.1, for payers that are multisigs: its published code at its canonical addresses.
  await installSafe(provider);

  const send = async (request: Parameters<typeof wallet.writeContract>[0]) => {
    const receipt = await client.waitForTransactionReceipt({
      hash: await wallet.writeContract(request),
    });
    if (receipt.status !== 'success') throw new Error('setting up the sandbox chain failed');
  };

  // Conversions (contracts.md §3): the rate path, both conversion proxies and a mock feed per
  // pair, registered on the path by its owner.
  const nativeHash = requestCurrencyHash('ETH', SANDBOX_NETWORK.native.hashValue);
  await create(
    'ChainlinkConversionPath',
    [nativeHash, deployer.address],
    expected.chainlinkConversionPath,
  );
  await create(
    'Erc20ConversionProxy',
    [expected.erc20FeeProxy, expected.chainlinkConversionPath, deployer.address],
    expected.erc20ConversionProxy,
  );
  await create(
    'EthConversionProxy',
    [expected.ethFeeProxy, expected.chainlinkConversionPath, nativeHash, deployer.address],
    expected.ethConversionProxy,
  );
  for (const feed of SANDBOX_AGGREGATORS) {
    await create('AggregatorMock', [feed.rate, 8, 1], expected[feed.name]);
  }
  // Recurring payouts (contracts.md §4): the deployer administers the proxy, the sandbox
  // relayer (a funded account of the mnemonic) holds RELAYER_ROLE from the constructor.
  await create(
    'ERC20RecurringPaymentProxy',
    [deployer.address, sandboxRelayer().address, expected.erc20FeeProxy],
    expected.recurringPaymentProxy,
  );
  // The local bridge (docs/guides/crosschain.md, "The local bridge"): Across's SpokePool, whose
  // expired deposits the bridge relayer refunds, and the handler that runs deposits' messages.
  await create('SpokePool', [sandboxBridgeRelayer().address], expected.spokePool);
  await create('MulticallHandler', [], expected.acrossHandler);
  await deployCommerce(create, expected);
  const ends = SANDBOX_AGGREGATORS.map((feed) => ({
    input: sandboxCurrencyHash(expected, nativeHash, feed.input),
    output: sandboxCurrencyHash(expected, nativeHash, feed.output),
  }));
  await send({
    address: expected.chainlinkConversionPath,
    abi: CONVERSION_PATH_ABI,
    functionName: 'updateAggregatorsList',
    args: [
      ends.map((end) => end.input),
      ends.map((end) => end.output),
      SANDBOX_AGGREGATORS.map((feed) => expected[feed.name]),
    ],
  });
  // The bridge relayer fills deposits with its own tokens; the commerce operator funds refunds.
  const funded = [
    ...wallets.map((holder) => holder.address),
    sandboxBridgeRelayer().address,
    sandboxCommerceOperator().address,
  ];
  for (const to of funded) {
    await send({
      address: expected.usdc,
      abi: ERC20,
      functionName: 'mint',
      args: [to, TOKEN_FUNDING * 10n ** 6n],
    });
    await send({
      address: expected.usdt,
      abi: ERC20,
      functionName: 'mint',
      args: [to, TOKEN_FUNDING * 10n ** 6n],
    });
    await send({
      address: expected.tst,
      abi: ERC20,
      functionName: 'mint',
      args: [to, TOKEN_FUNDING * 10n ** 18n],
    });
    if (to !== deployer.address) {
      await send({
        address: expected.dai,
        abi: ERC20,
        functionName: 'transfer',
        args: [to, TOKEN_FUNDING * 10n ** 18n],
      });
    }
  }
  const balance = await client.getBalance({ address: deployer.address });
  if (balance < parseEther('1000')) throw new Error('sandbox wallets hold no ether');
  const relayerBalance = await client.getBalance({ address: sandboxRelayer().address });
  if (relayerBalance < parseEther('1000')) throw new Error('the sandbox relayer holds no ether');
  return expected;
}

const CONVERSION_PATH_ABI = parseAbi([
  'function updateAggregatorsList(address[] _inputs, address[] _outputs, address[] _aggregators)',
]);

/** A feed's end on the sandbox chain: a token's address, or Request's hash of a currency. */
export function sandboxCurrencyHash(
  addresses: SandboxAddresses,
  nativeHash: Address,
  symbol: (typeof SANDBOX_AGGREGATORS)[number]['input' | 'output'],
): Address {
  switch (symbol) {
    case 'USDC':
      return addresses.usdc;
    case 'USDT':
      return addresses.usdt;
    case 'DAI':
      return addresses.dai;
    case 'ETH':
      return nativeHash;
    default:
      return requestCurrencyHash('ISO4217', symbol);
  }
}
