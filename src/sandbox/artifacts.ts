import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import vm from 'node:vm';
import type { Abi, Hex } from 'viem';
import { multicallHandlerArtifact, spokePoolArtifact } from './across-artifacts.ts';
import { batchAccountArtifact } from './batch-account-artifact.ts';
import {
  authCaptureEscrowArtifact,
  commerceEscrowWrapperArtifact,
  operatorRefundCollectorArtifact,
  preApprovalPaymentCollectorArtifact,
} from './commerce-escrow-artifacts.ts';
import { recurringPaymentProxyArtifact } from './recurring-proxy-artifact.ts';

/**
 * Creation bytecode and ABIs of the real Request contracts and test tokens, read from the
 * typechain factories that `@requestnetwork/smart-contracts` ships (a dev dependency: the
 * sandbox and the tests use it, production never loads it). The factories `require('ethers')`
 * only to extend its classes, so they run here against a stand-in that has just those names.
 * No package ships ERC20RecurringPaymentProxy, BatchAccount (the smart account the tests pay
 * through), Across's SpokePool and MulticallHandler (the local bridge) or the commerce escrow,
 * its collectors and wrapper: ours are compiled from `contracts/` ahead of time.
 */

export interface Artifact {
  readonly abi: Abi;
  readonly bytecode: Hex;
}

const FACTORIES = {
  ERC20FeeProxy: 'ERC20FeeProxy__factory.js',
  EthereumFeeProxy: 'EthereumFeeProxy__factory.js',
  BatchConversionPayments: 'BatchConversionPayments__factory.js',
  BatchPayments: 'BatchPayments__factory.js',
  TestERC20: 'TestERC20.sol/TestERC20__factory.js',
  TestToken: 'test/TestToken__factory.js',
  UsdtFake: 'test/UsdtFake__factory.js',
  ChainlinkConversionPath: 'ChainlinkConversionPath.sol/ChainlinkConversionPath__factory.js',
  Erc20ConversionProxy: 'Erc20ConversionProxy__factory.js',
  EthConversionProxy: 'EthConversionProxy__factory.js',
  AggregatorMock: 'test/AggregatorMock__factory.js',
} as const;

export type ArtifactName =
  | keyof typeof FACTORIES
  | 'Multicall3'
  | 'ERC20RecurringPaymentProxy'
  | 'BatchAccount'
  | 'SpokePool'
  | 'MulticallHandler'
  | 'AuthCaptureEscrow'
  | 'PreApprovalPaymentCollector'
  | 'OperatorRefundCollector'
  | 'ERC20CommerceEscrowWrapper';

const require = createRequire(import.meta.url);
const cache = new Map<ArtifactName, Artifact>();

export function loadArtifact(name: ArtifactName): Artifact {
  const cached = cache.get(name);
  if (cached) return cached;
  const artifact = uncached(name);
  cache.set(name, artifact);
  return artifact;
}

function uncached(name: ArtifactName): Artifact {
  switch (name) {
    case 'Multicall3':
      return multicall3();
    case 'ERC20RecurringPaymentProxy':
      return recurringPaymentProxyArtifact;
    case 'BatchAccount':
      return batchAccountArtifact;
    case 'SpokePool':
      return spokePoolArtifact;
    case 'MulticallHandler':
      return multicallHandlerArtifact;
    case 'AuthCaptureEscrow':
      return authCaptureEscrowArtifact;
    case 'PreApprovalPaymentCollector':
      return preApprovalPaymentCollectorArtifact;
    case 'OperatorRefundCollector':
      return operatorRefundCollectorArtifact;
    case 'ERC20CommerceEscrowWrapper':
      return commerceEscrowWrapperArtifact;
    default:
      return fromFactory(FACTORIES[name]);
  }
}

function fromFactory(file: string): Artifact {
  const root = dirname(require.resolve('@requestnetwork/smart-contracts/package.json'));
  const path = join(root, 'dist/src/types/factories/src/contracts', file);
  const exports: Record<string, { abi?: Abi; bytecode?: Hex }> = {};
  const ethers = { ContractFactory: class {}, Contract: class {}, utils: { Interface: class {} } };
  vm.runInNewContext(readFileSync(path, 'utf8'), {
    exports,
    module: { exports },
    require: (id: string) => (id === 'ethers' ? ethers : {}),
  });
  const factory = Object.values(exports).find((value) => value?.bytecode && value.abi);
  if (!factory?.abi || !factory.bytecode) throw new Error(`no bytecode in ${file}`);
  return { abi: factory.abi, bytecode: factory.bytecode };
}

/** Multicall3's creation code, as viem ships it (not exported, so read from its file). */
function multicall3(): Artifact {
  const root = dirname(require.resolve('viem/package.json'));
  const source = readFileSync(join(root, '_esm/constants/contracts.js'), 'utf8');
  const match = /multicall3Bytecode = '(0x[0-9a-f]+)'/.exec(source);
  if (!match?.[1]) throw new Error('Multicall3 bytecode not found in viem');
  return { abi: [], bytecode: match[1] as Hex };
}
