import type { Logger } from 'pino';
import type { ScreeningConfig } from '../../config/screening.ts';
import { type FakeScreening, startFakeScreening } from './fake-screening.ts';

/**
 * The sandbox's screening providers: with no `SCREENING_*_URL` set, `npm start` runs the fake
 * (fake-screening.ts) on loopback and points both providers at it, so a link with
 * `accessPolicy.mode: kyt_all_wallets` is screened with nothing else running. The address below
 * is sanctioned there: a payer can see a refusal.
 */

/** Sanctioned by the sandbox's fake providers (any other wallet passes). */
const SANDBOX_SANCTIONED_WALLET = '0x000000000000000000000000000000000000dead';

export async function startSandboxScreening(
  config: ScreeningConfig,
  logger: Logger,
): Promise<{ readonly fake: FakeScreening; readonly config: ScreeningConfig }> {
  const fake = await startFakeScreening({ sanctioned: [SANDBOX_SANCTIONED_WALLET] });
  logger.info(
    { screening: fake.url, sanctioned: SANDBOX_SANCTIONED_WALLET },
    `sandbox screening providers (hypernative, merklescience) at ${fake.url}; ${SANDBOX_SANCTIONED_WALLET} is sanctioned there (SCREENING_*_URL unset)`,
  );
  const provider = { url: fake.url, apiKey: null };
  return { fake, config: { ...config, hypernative: provider, merklescience: provider } };
}
