import { and, eq, gt, isNull } from 'drizzle-orm';
import { createClientId } from '../auth/client-ids.ts';
import type { Clock } from '../base/clock.ts';
import { ValidationError } from '../base/errors.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import {
  clientIdLinkIntents,
  orchestratorClientLinks,
  payeeDestinations,
  type StoredKytPlan,
} from '../db/schema.ts';
import { type DestinationRow, findDestination } from '../destinations/destinations.ts';
import { orchestratorWebhookIds } from '../webhooks/orchestrator-webhooks.ts';
import { enqueue } from '../webhooks/outbox.ts';
import { findLinkIntent, refusal } from './link-intents.ts';

/**
 * Completing a link intent (`POST /v1/client-id-links/intents/{token}`): in one transaction the
 * intent is marked used by a conditional update (of two completions at once, one wins and the
 * other answers `link_intent_used`), the merchant's new client ID is created with the intent's
 * name and domains and bound to the destination, linked to the orchestrator with the intent's
 * KYT plan, and `client_id.linked` is written to the orchestrator's outbox, so the event exists
 * if and only if the link does.
 */

export interface CompletedIntent {
  readonly clientId: {
    readonly id: string;
    readonly clientId: string;
    readonly label: string;
    readonly allowedDomains: string[];
    readonly payeeDestinationId: string;
    readonly status: string;
    readonly createdAt: string;
  };
  readonly link: {
    readonly id: string;
    readonly clientIdId: string;
    readonly orchestratorId: string;
    readonly status: 'active';
    readonly kyt: StoredKytPlan | null;
    readonly createdAt: string;
  };
}

/**
 * The destination the new client ID is bound to: the one named, or the account's only active
 * one. A 400 on `destinationId` otherwise, before anything is written.
 */
async function chosenDestination(
  db: Database,
  accountId: string,
  destinationId: string | undefined,
): Promise<DestinationRow> {
  const field = 'destinationId';
  if (destinationId !== undefined) {
    const row = await findDestination(db, accountId, destinationId);
    if (row === null) {
      throw new ValidationError([{ field, message: 'is not a payee destination of this account' }]);
    }
    if (!row.active) {
      throw new ValidationError([
        { field, message: 'is inactive; bind an active payee destination' },
      ]);
    }
    return row;
  }
  const active = await db
    .select()
    .from(payeeDestinations)
    .where(and(eq(payeeDestinations.accountId, accountId), eq(payeeDestinations.active, true)))
    .limit(2);
  const [only] = active;
  if (only && active.length === 1) return only;
  throw new ValidationError([
    {
      field,
      message:
        active.length === 0
          ? 'is required: the account has no active payee destination (create one first)'
          : 'is required: the account has several active payee destinations',
    },
  ]);
}

export async function completeLinkIntent(
  deps: { readonly db: Database; readonly clock: Clock; readonly chains: ChainRegistry },
  accountId: string,
  token: string,
  destinationId: string | undefined,
): Promise<CompletedIntent> {
  const now = deps.clock.now();
  const intent = await findLinkIntent(deps.db, token);
  const early = refusal(intent, now);
  if (early) throw early;
  const destination = await chosenDestination(deps.db, accountId, destinationId);
  return deps.db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(clientIdLinkIntents)
      .set({ usedAt: now, updatedAt: now })
      .where(
        and(
          eq(clientIdLinkIntents.id, intent.id),
          isNull(clientIdLinkIntents.usedAt),
          gt(clientIdLinkIntents.expiresAt, now),
        ),
      )
      .returning();
    if (!claimed) {
      // Another completion won between our read and this update (or the intent just expired).
      const current = await findLinkIntent(tx, token);
      throw refusal(current, now) ?? new Error('link intent claim matched no row');
    }
    const client = await createClientId(tx, {
      accountId,
      label: claimed.clientIdName,
      allowedDomains: claimed.allowedDomains,
      payeeDestinationId: destination.destinationId,
      createdAt: now,
    });
    const [link] = await tx
      .insert(orchestratorClientLinks)
      .values({
        orchestratorId: claimed.orchestratorId,
        clientIdId: client.id,
        kytPlan: claimed.kytPlan,
        createdAt: now,
      })
      .returning();
    if (!link) throw new Error('link insert returned no row');
    await tx
      .update(clientIdLinkIntents)
      .set({ clientIdId: client.id })
      .where(eq(clientIdLinkIntents.id, claimed.id));
    const network = deps.chains.networkByChainId(destination.chainId);
    const currency = network && deps.chains.currencyByToken(network.id, destination.tokenAddress);
    await enqueue(tx, now, await orchestratorWebhookIds(tx, claimed.orchestratorId), [
      {
        event: 'client_id.linked',
        payload: {
          clientId: client.clientId,
          orchestratorId: claimed.orchestratorId,
          linkId: link.id,
          intentId: claimed.id,
          // The reference types it a string: an intent made without one sends "".
          externalId: claimed.externalId ?? '',
          destinationId: destination.destinationId,
          destinationWalletAddress: destination.walletAddress,
          chain: destination.network,
          currency: currency?.symbol ?? destination.tokenAddress,
          timestamp: now.toISOString(),
        },
      },
    ]);
    return {
      clientId: {
        id: client.id,
        clientId: client.clientId,
        label: client.label,
        allowedDomains: client.allowedDomains,
        payeeDestinationId: destination.destinationId,
        status: client.status,
        createdAt: client.createdAt.toISOString(),
      },
      link: {
        id: link.id,
        clientIdId: client.id,
        orchestratorId: link.orchestratorId,
        status: 'active',
        kyt: link.kytPlan,
        createdAt: link.createdAt.toISOString(),
      },
    };
  });
}
