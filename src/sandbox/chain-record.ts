import { and, eq } from 'drizzle-orm';
import { SANDBOX_NETWORK } from '../chains/networks.ts';
import type { Database } from '../db/client.ts';
import { chainBlocks, chainCheckpoints, sandboxChains } from '../db/schema.ts';

/**
 * The `sandbox_chains` row: where the process that runs the deployment's sandbox chain serves
 * its JSON-RPC, for the processes that do not run it.
 */

/**
 * A new chain shares no block with the one before it. Without this, the indexer would wait for
 * the new chain to pass the old one's height, then take the difference for a reorganisation and
 * roll back the payments it recorded on the old chain, which did happen.
 */
export async function forgetSandboxBlocks(db: Database): Promise<void> {
  await db.delete(chainBlocks).where(eq(chainBlocks.network, SANDBOX_NETWORK.id));
  await db.delete(chainCheckpoints).where(eq(chainCheckpoints.network, SANDBOX_NETWORK.id));
}

/** A new chain and where it answers, with the old chain's blocks forgotten, at once. */
export async function recordSandboxChain(
  db: Database,
  chain: { rpcUrl: string; chainInstance: string },
): Promise<void> {
  await db.transaction(async (tx) => {
    await forgetSandboxBlocks(tx);
    await tx
      .insert(sandboxChains)
      .values({ network: SANDBOX_NETWORK.id, ...chain })
      .onConflictDoUpdate({
        target: sandboxChains.network,
        set: { ...chain, startedAt: new Date() },
      });
  });
}

export async function sandboxChainUrl(db: Database): Promise<string | null> {
  const [row] = await db
    .select({ rpcUrl: sandboxChains.rpcUrl })
    .from(sandboxChains)
    .where(eq(sandboxChains.network, SANDBOX_NETWORK.id));
  return row?.rpcUrl ?? null;
}

/** Removes the row if it is still this chain's (a process that took over keeps its own). */
export async function forgetSandboxChain(db: Database, chainInstance: string): Promise<void> {
  await db
    .delete(sandboxChains)
    .where(
      and(
        eq(sandboxChains.network, SANDBOX_NETWORK.id),
        eq(sandboxChains.chainInstance, chainInstance),
      ),
    );
}
