import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { AppError } from '../base/errors.ts';
import { type FakeScreening, startFakeScreening } from '../sandbox/screening/fake-screening.ts';
import { checkLinkPayer, type GatedLink } from './gate.ts';
import { createScreeningService } from './screen.ts';

/**
 * The payer check alone, against the fake providers over HTTP and a real database: Tron
 * allowlists compare as written (base58 is case-sensitive), and with both providers down the
 * configured policy decides: refused by default, let through when set to fail open.
 */

const TRON_PAYER = 'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF';
const EVM_PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

let t: TestApp;
let fake: FakeScreening;

beforeAll(async () => {
  t = await createTestApp();
  fake = await startFakeScreening();
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

function link(screening: GatedLink['screening']): GatedLink {
  return {
    id: '0190a0a0-0000-7000-8000-000000000001',
    token: '01KAAAAAAAAAAAAAAAAAAAAAAA',
    accountId: '0190a0a0-0000-7000-8000-000000000002',
    clientIdId: null,
    requestId: `01${'0'.repeat(64)}`,
    network: 'base',
    screening,
  };
}

function deps(failOpen: boolean) {
  const provider = { url: fake.url, apiKey: null };
  return {
    db: t.db,
    clock: t.clock,
    screening: createScreeningService({
      hypernative: provider,
      merklescience: provider,
      timeoutMs: 300,
      cacheSeconds: 0,
      failOpen,
      completionPollMs: 1_000,
    }),
  };
}

async function codeOf(promise: Promise<void>): Promise<string | null> {
  try {
    await promise;
    return null;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

const KYT = {
  mode: 'kyt_all_wallets' as const,
  providers: [
    { provider: 'hypernative' as const, policyId: null },
    { provider: 'merklescience' as const, policyId: null },
  ],
  source: 'payment' as const,
  allowedPayerAddresses: [],
};

describe('checkLinkPayer', () => {
  it('compares a Tron allowlist as written, an EVM one in any case', async () => {
    const rules = {
      mode: 'off' as const,
      providers: [],
      source: 'none' as const,
      allowedPayerAddresses: [TRON_PAYER, EVM_PAYER.toLowerCase()],
    };
    expect(await codeOf(checkLinkPayer(deps(false), link(rules), { wallet: TRON_PAYER }))).toBe(
      null,
    );
    expect(
      await codeOf(checkLinkPayer(deps(false), link(rules), { wallet: TRON_PAYER.toLowerCase() })),
    ).toBe('payer_not_allowed');
    expect(
      await codeOf(
        checkLinkPayer(deps(false), link(rules), {
          wallet: EVM_PAYER.toUpperCase().replace('0X', '0x'),
        }),
      ),
    ).toBe(null);
  });

  it('admits by the paying wallet only: a listed eoaWallet does not admit an unlisted wallet', async () => {
    const rules = {
      mode: 'off' as const,
      providers: [],
      source: 'none' as const,
      allowedPayerAddresses: [EVM_PAYER.toLowerCase()],
    };
    const stranger = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
    expect(
      await codeOf(
        checkLinkPayer(deps(false), link(rules), { wallet: stranger, eoaWallet: EVM_PAYER }),
      ),
    ).toBe('payer_not_allowed');
    expect(
      await codeOf(
        checkLinkPayer(deps(false), link(rules), { wallet: EVM_PAYER, eoaWallet: stranger }),
      ),
    ).toBe(null);
  });

  it('refuses while both providers are down, unless the service fails open', async () => {
    fake.fail('hypernative', { kind: 'error', status: 500 });
    fake.fail('merklescience', { kind: 'hang' });
    try {
      expect(await codeOf(checkLinkPayer(deps(false), link(KYT), { wallet: EVM_PAYER }))).toBe(
        'payer_screening_unavailable',
      );
      expect(await codeOf(checkLinkPayer(deps(true), link(KYT), { wallet: EVM_PAYER }))).toBe(null);
    } finally {
      fake.recover();
    }
  });

  it('screens a smart account and its owner, and refuses when the owner is sanctioned', async () => {
    const owner = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
    fake.sanction(owner);
    const before = fake.received.length;
    expect(
      await codeOf(checkLinkPayer(deps(false), link(KYT), { wallet: EVM_PAYER, eoaWallet: owner })),
    ).toBe('payer_screening_rejected');
    expect(fake.received.slice(before).map((call) => call.address)).toEqual([
      EVM_PAYER.toLowerCase(),
      owner.toLowerCase(),
    ]);
  });
});
