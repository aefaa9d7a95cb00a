import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { type Address, createPublicClient, custom, getAddress } from 'viem';
import { erc20Abi } from '../../payments/abis.ts';
import type { Eip1193Provider } from '../chain.ts';
import { type FakeOfframp, startFakeOfframp } from './fake-offramp.ts';

/** Between two steps of a sandbox transfer's progress: slow enough to watch, quick enough. */
const SANDBOX_STEP_MS = 2_000;
const SANDBOX_WATCH_MS = 1_000;

/**
 * The sandbox's off-ramp (`npm start` without `OFFRAMP_URL`): the fake provider, watching its
 * deposit addresses' USDC-sandbox balances on the sandbox chain and calling the service back at
 * `callbackUrl`, signed with a secret made for this run.
 */
export async function startSandboxOfframp(deps: {
  readonly provider: Eip1193Provider;
  readonly usdc: Address;
  readonly callbackUrl: string;
  readonly logger: Logger;
}): Promise<{ readonly fake: FakeOfframp; readonly webhookSecret: string }> {
  const client = createPublicClient({ transport: custom(deps.provider, { retryCount: 0 }) });
  const webhookSecret = randomBytes(32).toString('hex');
  const fake = await startFakeOfframp({
    webhookSecret,
    callbackUrl: deps.callbackUrl,
    stepDelayMs: SANDBOX_STEP_MS,
    watch: {
      pollMs: SANDBOX_WATCH_MS,
      logger: deps.logger,
      balanceOf: (_rail, address) =>
        client.readContract({
          address: getAddress(deps.usdc),
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [address],
        }),
    },
  });
  deps.logger.info(
    { offramp: fake.url },
    `sandbox off-ramp ready: ${fake.url} (OFFRAMP_URL unset); crypto-to-fiat transfers of USDC-sandbox report each step to ${deps.callbackUrl}, ${SANDBOX_STEP_MS / 1000} s apart (docs/guides/crypto-to-fiat.md)`,
  );
  return { fake, webhookSecret };
}
