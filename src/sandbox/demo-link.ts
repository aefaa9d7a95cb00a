import { eq } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { SANDBOX_NETWORK } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { accounts } from '../db/schema.ts';
import { activateDestination } from '../destinations/destinations.ts';
import { resolveTarget } from '../destinations/target.ts';
import { createSecurePayment } from '../secure-payments/create.ts';
import { sandboxWallets } from './addresses.ts';

/** The account that owns the demo links: made once, with no API key (nothing acts for it). */
const DEMO_ACCOUNT = 'Sandbox demo (payreq)';
export const DEMO_AMOUNT = '10';
/** Test wallet 1 is paid; a payer imports test wallet 2's key into a browser wallet. */
const DEMO_PAYEE_WALLET = 1;
export const DEMO_PAYER_WALLET = 2;

/**
 * A link for 10 USDC-sandbox to test wallet 1, made at every start of a server running the
 * sandbox, so a new user can open the pay page and pay it from a browser wallet at once.
 */
export async function createDemoLink(deps: {
  db: Database;
  clock: Clock;
  chains: ChainRegistry;
  payUrl: string;
}): Promise<{ url: string; token: string }> {
  const { db } = deps;
  const [existing] = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(accounts.name, DEMO_ACCOUNT))
    .limit(1);
  const accountId =
    existing?.id ??
    (await db.insert(accounts).values({ name: DEMO_ACCOUNT }).returning({ id: accounts.id }))[0]
      ?.id;
  if (!accountId) throw new Error('demo account insert returned no row');
  const usdc = deps.chains.currency(`USDC-${SANDBOX_NETWORK.id}`);
  const payee = sandboxWallets()[DEMO_PAYEE_WALLET];
  if (!usdc || usdc.network === 'fiat' || !payee) throw new Error('the sandbox has no USDC');
  const target = resolveTarget(deps.chains, {
    walletAddress: payee.address,
    chainId: SANDBOX_NETWORK.chainId,
    tokenAddress: usdc.address,
  });
  const destination = await activateDestination(db, deps.clock, accountId, target);
  // The demo link is the sandbox's own: it charges no protocol fee, whatever is configured.
  const link = await createSecurePayment(
    { ...deps, protocolFee: null },
    { accountId, clientId: null, orchestrated: false, orchestratorId: null, origin: null },
    {
      requests: [{ destinationId: destination.destinationId, amount: DEMO_AMOUNT }],
      reference: 'sandbox-demo',
    },
  );
  return { url: link.securePaymentUrl, token: link.token };
}
