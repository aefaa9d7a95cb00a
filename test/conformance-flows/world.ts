import type { Hex } from 'viem';
import type { Indexer } from '../../src/detection/indexer.ts';
import type { FakeCompliance } from '../../src/sandbox/compliance/fake-compliance.ts';
import type { FakeOfframp } from '../../src/sandbox/offramp/fake-offramp.ts';
import type { TestApp } from '../app.ts';
import type { StandIn } from '../chain.ts';
import type { CrossChainWorld } from '../crosschain-world.ts';
import type { FakeTronNode } from '../fake-tron-node.ts';
import type { Tenant } from '../fixtures.ts';

/**
 * What every conformance flow (`test/e2e/conformance.test.ts`) runs against: one app, whose
 * answers are all checked against the reference's schemas and counted together, with its local
 * chains and fake providers, and one tenant. The flows run in the test file's order, on the
 * state the earlier ones left.
 */
export interface ConformanceWorld {
  readonly local: StandIn;
  readonly t: TestApp;
  readonly tenant: Tenant;
  readonly indexer: Indexer;
  readonly tron: FakeTronNode;
  readonly crossChain: CrossChainWorld;
  readonly compliance: FakeCompliance;
  readonly offramp: FakeOfframp;
  /** The tenant's API key, as request headers. */
  readonly headers: () => Record<string, string>;
  /** Expects the answer's status (200 unless told), showing its body when it differs. */
  readonly ok: (res: { statusCode: number; body: string }, status?: number) => void;
}

export const USDC_BASE_ID = 'USDC-base';
export const PAYEE_KEY = `0x${'59'.repeat(32)}` as Hex;
/** The server's commerce operator and a commerce buyer, among the local chain's wallets. */
export const COMMERCE_OPERATOR = 4;
export const COMMERCE_BUYER = 1;
/** The local chain's wallet that pays the Tron link (through the Tron node on the same EVM). */
export const TRON_PAYER = 3;
