import { createRequire } from 'node:module';
import { firstLine, StartError } from '../base/start-error.ts';

type StartLocalChain = typeof import('./chain.ts')['startLocalChain'];

/** Run without the sandbox: the fix that always works, named in every failure. */
const OR_OFF = 'or set SANDBOX=false to run without the sandbox';

/**
 * The sandbox's chain starter, with what it needs loaded: Hardhat (a dev dependency) and its
 * EVM, EDR (`@nomicfoundation/edr`, a native package: one build per platform, each an optional
 * dependency that npm skips when it runs on a Node older than the build asks for). Hardhat
 * loads EDR only when a chain starts; it is loaded here, at start, so that a process that
 * cannot run the chain says so at once, even one that would only take the chain over later.
 * Throws a StartError naming what is missing and the fix.
 */
export async function loadChainStarter(): Promise<StartLocalChain> {
  let startLocalChain: StartLocalChain;
  try {
    [{ startLocalChain }] = await Promise.all([import('./chain.ts'), import('hardhat/hre')]);
  } catch (error) {
    throw new StartError(
      `the sandbox cannot start: its dev dependencies are not installed (${firstLine(error)}); run \`npm install\` (without --omit=dev), ${OR_OFF} (NODE_ENV=production does)`,
      { cause: error },
    );
  }
  try {
    // Resolved from Hardhat, as Hardhat itself loads it.
    const fromHardhat = createRequire(import.meta.resolve('hardhat/hre'));
    fromHardhat('@nomicfoundation/edr');
  } catch (error) {
    throw new StartError(
      `the sandbox cannot start: its EVM module (@nomicfoundation/edr) has no native build installed for this machine (${process.platform}-${process.arch}, Node ${process.version}); run \`PATH=$PWD/node_modules/.bin:$PATH npm install\` so that npm installs it on Node 24, ${OR_OFF}`,
      { cause: error },
    );
  }
  return startLocalChain;
}

/** The chain was loaded but did not start (its contracts did not deploy, say). */
export function chainStartError(error: unknown): StartError {
  return new StartError(`the sandbox chain could not start (${firstLine(error)}); ${OR_OFF}`, {
    cause: error,
  });
}
