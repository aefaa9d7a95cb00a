import type { Logger } from 'pino';
import { getAddress } from 'viem';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Config } from '../config/config.ts';
import { SecretText } from '../config/crosschain.ts';
import type { SandboxHost } from './host.ts';

/**
 * The sandbox's fakes of the third parties a deployment names by URL: the compliance provider
 * (COMPLIANCE_URL), the screening providers (SCREENING_*_URL) and the off-ramp (OFFRAMP_URL).
 * Each runs on loopback only when its setting is unset, so `npm start` tries every flow offline;
 * the configuration handed back points at those that run. The routing aggregator is the
 * sandbox host's own (host.ts), for it bridges the sandbox's two chains.
 */
export interface SandboxThirdParties {
  readonly config: Config;
  /** The server's own base URL once it listens, for the fakes that call it back. */
  callTo(baseUrl: string): void;
  close(): Promise<void>;
}

export async function startSandboxThirdParties(deps: {
  readonly config: Config;
  readonly sandbox: SandboxHost;
  readonly chains: ChainRegistry;
  readonly logger: Logger;
}): Promise<SandboxThirdParties> {
  let config = deps.config;
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closeOne of closers.reverse()) await closeOne();
  };
  let callTo: (baseUrl: string) => void = () => {};
  try {
    if (config.compliance.url === null) {
      const { startSandboxCompliance } = await import('./compliance/sandbox.ts');
      const compliance = await startSandboxCompliance();
      closers.push(() => compliance.close());
      callTo = (baseUrl) => compliance.callTo(baseUrl);
      config = { ...config, compliance: { ...config.compliance, ...compliance.config } };
    }
    if (config.screening.defaulted) {
      const { startSandboxScreening } = await import('./screening/sandbox-screening.ts');
      const screening = await startSandboxScreening(config.screening, deps.logger);
      closers.push(() => screening.fake.close());
      config = { ...config, screening: screening.config };
    }
    const usdc = deps.chains.currency('USDC-sandbox')?.address;
    if (config.offramp.url === null && usdc) {
      const { startSandboxOfframp } = await import('./offramp/sandbox-offramp.ts');
      const offramp = await startSandboxOfframp({
        provider: deps.sandbox.provider,
        usdc: getAddress(usdc),
        callbackUrl: `${config.baseUrl}/v2/offramp/callbacks`,
        logger: deps.logger,
      });
      closers.push(() => offramp.fake.close());
      config = {
        ...config,
        offramp: {
          ...config.offramp,
          url: offramp.fake.url,
          webhookSecret: new SecretText(offramp.webhookSecret),
        },
      };
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { config, callTo, close };
}
