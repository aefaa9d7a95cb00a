import { randomBytes } from 'node:crypto';
import type { ComplianceConfig } from '../../config/compliance.ts';
import { SecretText } from '../../config/crosschain.ts';
import { startFakeCompliance } from './fake-compliance.ts';

/**
 * The sandbox's compliance provider (`npm start` without COMPLIANCE_URL): the fake, deciding by
 * itself a few seconds after each KYC link and bank account (rules.ts's magic values), calling
 * back the server once it listens.
 */

const AUTO_DECIDE_MS = 3_000;

export interface SandboxCompliance {
  /** What the server's configuration takes from it. */
  readonly config: Pick<ComplianceConfig, 'url' | 'webhookSecret'>;
  /** The server's own base URL, once it listens. */
  callTo(baseUrl: string): void;
  close(): Promise<void>;
}

export async function startSandboxCompliance(): Promise<SandboxCompliance> {
  const secret = randomBytes(24).toString('hex');
  const fake = await startFakeCompliance({ webhookSecret: secret, autoDecideMs: AUTO_DECIDE_MS });
  return {
    config: { url: fake.url, webhookSecret: new SecretText(secret) },
    callTo: (baseUrl) => fake.setCallbackUrl(`${baseUrl}/v2/payer/compliance-callbacks`),
    close: () => fake.close(),
  };
}
