import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  type Abi,
  type Address,
  type EIP1193RequestFn,
  encodeFunctionData,
  getAddress,
  type Hex,
  type Log,
  numberToHex,
  parseEventLogs,
  zeroAddress,
} from 'viem';
import { SAFE_1_4_1 } from '../chains/contracts.ts';
import { safeAbi, safeProxyFactoryAbi } from '../payments/safe/abi.ts';

/**
 * Safe 1.4.1 on a local chain, at the addresses Safe deployed it to on every network
 * (contracts.md §10.2), so that what a payer Safe is told on the sandbox (MultiSendCallOnly's
 * address, a Safe's singleton) is what it would be told on mainnet. The code is the published
 * runtime bytecode that `@safe-global/safe-contracts@1.4.1` ships (a dev dependency, as the
 * Request contracts' package is: the sandbox and the tests load it, production never does);
 * its keccak is Safe's canonical code hash for each of these five. None of them holds an
 * immutable, so copying the runtime code is deploying it.
 */

type SafeContract = keyof typeof SAFE_1_4_1;

const ARTIFACTS = {
  safeSingleton: 'Safe.sol/Safe.json',
  safeL2Singleton: 'SafeL2.sol/SafeL2.json',
  safeProxyFactory: 'proxies/SafeProxyFactory.sol/SafeProxyFactory.json',
  multiSendCallOnly: 'libraries/MultiSendCallOnly.sol/MultiSendCallOnly.json',
  safeFallbackHandler: 'handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json',
} as const satisfies Record<SafeContract, string>;

/**
 * A singleton's constructor sets its threshold to 1 so that nobody can set the singleton itself
 * up as a Safe; copied code runs no constructor, so the slot is written as it would have left
 * it. OwnerManager's `threshold` is slot 4 (after the singleton, modules, owners, ownerCount).
 */
const THRESHOLD_SLOT = 4;

const require = createRequire(import.meta.url);

interface SafeArtifact {
  readonly abi: Abi;
  readonly deployedBytecode: Hex;
}

const cache = new Map<SafeContract, SafeArtifact>();

export function safeArtifact(name: SafeContract): SafeArtifact {
  const cached = cache.get(name);
  if (cached) return cached;
  const root = dirname(require.resolve('@safe-global/safe-contracts/package.json'));
  const path = join(root, 'build/artifacts/contracts', ARTIFACTS[name]);
  const json = JSON.parse(readFileSync(path, 'utf8')) as Partial<SafeArtifact>;
  if (!json.abi || !json.deployedBytecode || json.deployedBytecode.length <= 2) {
    throw new Error(`no runtime bytecode in ${ARTIFACTS[name]}`);
  }
  const artifact = { abi: json.abi, deployedBytecode: json.deployedBytecode };
  cache.set(name, artifact);
  return artifact;
}

/** Puts the five contracts at their canonical addresses (Hardhat's `hardhat_setCode`). */
export async function installSafe(provider: { request: EIP1193RequestFn }): Promise<void> {
  for (const name of Object.keys(ARTIFACTS) as SafeContract[]) {
    await provider.request({
      method: 'hardhat_setCode',
      params: [SAFE_1_4_1[name], safeArtifact(name).deployedBytecode],
    });
  }
  for (const singleton of [SAFE_1_4_1.safeSingleton, SAFE_1_4_1.safeL2Singleton]) {
    await provider.request({
      method: 'hardhat_setStorageAt',
      params: [singleton, numberToHex(THRESHOLD_SLOT), numberToHex(1, { size: 32 })],
    });
  }
}

/**
 * The call that makes a Safe: `createProxyWithNonce` on SafeProxyFactory, the proxy set up with
 * `owners` and `threshold` and the CompatibilityFallbackHandler, as Safe's own apps make one.
 * SafeL2 unless told otherwise (its executions log their parameters; both pay alike).
 */
export function createSafeCall(input: {
  readonly owners: readonly Address[];
  readonly threshold: number;
  readonly saltNonce: bigint;
  readonly singleton?: 'safeSingleton' | 'safeL2Singleton';
}): { readonly to: Address; readonly data: Hex } {
  const owners = input.owners.map((owner) => getAddress(owner));
  if (owners.length === 0) throw new Error('a Safe needs at least one owner');
  if (new Set(owners).size !== owners.length) throw new Error('the owners must differ');
  if (owners.includes(zeroAddress)) throw new Error('an owner cannot be the zero address');
  if (
    !Number.isInteger(input.threshold) ||
    input.threshold < 1 ||
    input.threshold > owners.length
  ) {
    throw new Error(`the threshold must be from 1 to ${owners.length} (the number of owners)`);
  }
  const initializer = encodeFunctionData({
    abi: safeAbi,
    functionName: 'setup',
    args: [
      owners,
      BigInt(input.threshold),
      zeroAddress,
      '0x',
      SAFE_1_4_1.safeFallbackHandler,
      zeroAddress,
      0n,
      zeroAddress,
    ],
  });
  return {
    to: SAFE_1_4_1.safeProxyFactory,
    data: encodeFunctionData({
      abi: safeProxyFactoryAbi,
      functionName: 'createProxyWithNonce',
      args: [SAFE_1_4_1[input.singleton ?? 'safeL2Singleton'], initializer, input.saltNonce],
    }),
  };
}

/** The Safe a creation made, from its receipt's `ProxyCreation`. */
export function createdSafe(logs: readonly Log[]): Address {
  const [created] = parseEventLogs({
    abi: safeProxyFactoryAbi,
    eventName: 'ProxyCreation',
    logs: [...logs],
  });
  if (!created) throw new Error('the proxy factory made no Safe');
  return getAddress(created.args.proxy);
}
