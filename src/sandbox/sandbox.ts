import type { Logger } from 'pino';
import { SANDBOX_NETWORK } from '../chains/networks.ts';
import type { LocalChain } from './chain.ts';

/**
 * Starts the sandbox chain for `npm start`, when the dev dependencies that run it (Hardhat's
 * EDR and the Request contract artifacts) are installed; a production install has neither, and
 * the sandbox stays off. The wallets' keys are the well-known development keys, printed so a
 * new user can import one into a browser wallet.
 */
export async function startSandbox(logger: Logger, baseUrl: string): Promise<LocalChain | null> {
  let chain: LocalChain;
  try {
    const { startLocalChain } = await import('./chain.ts');
    chain = await startLocalChain({ chainId: SANDBOX_NETWORK.chainId });
  } catch (error) {
    logger.warn({ err: error }, 'sandbox chain not started (set SANDBOX=false to silence this)');
    return null;
  }
  logger.info(
    {
      network: SANDBOX_NETWORK.id,
      chainId: SANDBOX_NETWORK.chainId,
      rpc: `${baseUrl}/sandbox/rpc`,
      contracts: chain.addresses,
      wallets: chain.wallets.map((w) => ({
        index: w.index,
        address: w.address,
        privateKey: w.privateKey,
      })),
    },
    `sandbox chain ready: JSON-RPC ${baseUrl}/sandbox/rpc, chain id ${SANDBOX_NETWORK.chainId}; test wallets (development keys, never use them elsewhere): ${chain.wallets.map((w) => `#${w.index} ${w.address} ${w.privateKey}`).join('; ')}`,
  );
  return chain;
}
