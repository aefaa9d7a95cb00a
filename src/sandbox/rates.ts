import { type Address, createWalletClient, custom, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from './artifacts.ts';
import type { LocalChain } from './chain.ts';

const UPDATE_AGGREGATOR = parseAbi([
  'function updateAggregator(address _input, address _output, address _aggregator)',
]);

/**
 * Moves a sandbox rate: the mock feeds cannot change their answer, so a new AggregatorMock
 * with `rate` (8 decimals: price of `input` in `output`) replaces the pair's feed on the
 * ChainlinkConversionPath. Its timestamp is the block that deploys it. `input` and `output`
 * are token addresses or currency hashes, as the feeds are keyed.
 */
export async function setSandboxRate(
  chain: LocalChain,
  pair: { readonly input: Address; readonly output: Address },
  rate: bigint,
): Promise<Address> {
  const wallet = ownerWallet(chain);
  const { abi, bytecode } = loadArtifact('AggregatorMock');
  const deployed = await chain.client.waitForTransactionReceipt({
    hash: await wallet.deployContract({ abi, bytecode, args: [rate, 8, 1] }),
  });
  const feed = deployed.contractAddress;
  if (!feed) throw new Error('the new feed was not deployed');
  await registerSandboxFeed(chain, pair, feed);
  return feed;
}

/** Makes `feed` (a Chainlink-style aggregator) the sandbox's feed for `pair`. */
export async function registerSandboxFeed(
  chain: LocalChain,
  pair: { readonly input: Address; readonly output: Address },
  feed: Address,
): Promise<void> {
  const wallet = ownerWallet(chain);
  const updated = await chain.client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: chain.addresses.chainlinkConversionPath,
      abi: UPDATE_AGGREGATOR,
      functionName: 'updateAggregator',
      args: [pair.input, pair.output, feed],
    }),
  });
  if (updated.status !== 'success') throw new Error('the feed was not registered');
}

/** The sandbox's deployer: it owns the conversion path. */
function ownerWallet(chain: LocalChain) {
  const owner = chain.wallets[0];
  if (!owner) throw new Error('the sandbox chain has no deployer wallet');
  return createWalletClient({
    account: privateKeyToAccount(owner.privateKey),
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
}
