import { eq, inArray } from 'drizzle-orm';
import {
  apiKeys,
  brandings,
  clientIds,
  destinationNonces,
  feeConfigs,
  journeySteps,
  journeys,
  orchestratorClientLinks,
  payeeDestinations,
  payers,
  paymentDetails,
  payments,
  recurringExecutions,
  recurringPayouts,
  requestSchedules,
  requests,
  securePayments,
  sessions,
  webhookDeliveries,
  webhooks,
} from '../src/db/schema.ts';
import type { RouteEntry } from '../src/server/route-table.ts';
import type { Objects, Probe, Tenant } from './tenancy-probe-kit.ts';
import { a, PAYMENT_TX, t } from './tenancy-world.ts';

/** What the isolation matrix checks after each call: leaks, changed rows, and the URLs it sends. */

export function secretsOf(o: Objects): string[] {
  return [
    a.accountId,
    a.clientId,
    o.token,
    ...o.payoutTokens,
    o.multicallToken,
    o.requestId,
    o.journeyId,
    o.recurringRequestId,
    o.recurringPaymentReference,
    o.commerceRequestId,
    o.commercePayToken,
    o.payerUserId,
    o.paymentDetailsId,
    o.payerEmail,
    o.destinationId,
    o.webhookId,
    o.webhookUrl,
    o.webhookClientId,
    o.deliveryId,
    o.clientIdRowId,
    o.clientIdLabel,
    o.apiKeyId,
    o.linkedClientId,
    o.feeConfigId,
    o.linkedClientIdRowId,
    o.orchestratorWebhookId,
    o.orchestratorWebhookUrl,
    o.add.nonce,
    o.deactivate.nonce,
    o.recurringPayoutId,
    o.recurringPayToken,
    PAYMENT_TX,
  ];
}

/** Every row of A's, except the usage timestamps A's own calls move. */
export async function snapshotOfA(): Promise<unknown> {
  const account = a.accountId;
  const hooks = await t.db.select().from(webhooks).where(eq(webhooks.accountId, account));
  const clients = await t.db.select().from(clientIds).where(eq(clientIds.accountId, account));
  const withoutUsage = <T extends { lastUsedAt?: unknown }>(rows: T[]) =>
    rows.map(({ lastUsedAt: _ignored, ...rest }) => rest);
  return {
    // In id order: without one, the order follows whichever plan the statistics of the moment
    // pick (a list index or the table), and two equal snapshots could compare unequal.
    links: await t.db
      .select()
      .from(securePayments)
      .where(eq(securePayments.accountId, account))
      .orderBy(securePayments.id),
    recurringPayouts: await t.db
      .select()
      .from(recurringPayouts)
      .where(eq(recurringPayouts.accountId, account))
      .orderBy(recurringPayouts.id),
    recurringExecutions: await t.db
      .select({ execution: recurringExecutions })
      .from(recurringExecutions)
      .innerJoin(recurringPayouts, eq(recurringPayouts.id, recurringExecutions.recurringPayoutId))
      .where(eq(recurringPayouts.accountId, account))
      .orderBy(recurringExecutions.id),
    requests: await t.db
      .select()
      .from(requests)
      .where(eq(requests.accountId, account))
      .orderBy(requests.id),
    schedules: await t.db
      .select()
      .from(requestSchedules)
      .where(eq(requestSchedules.accountId, account))
      .orderBy(requestSchedules.requestRowId),
    journeys: await t.db
      .select()
      .from(journeys)
      .where(eq(journeys.accountId, account))
      .orderBy(journeys.id),
    journeySteps: await t.db
      .select({ step: journeySteps })
      .from(journeySteps)
      .innerJoin(journeys, eq(journeys.id, journeySteps.journeyId))
      .where(eq(journeys.accountId, account))
      .orderBy(journeySteps.id),
    payments: await t.db
      .select()
      .from(payments)
      .where(eq(payments.accountId, account))
      .orderBy(payments.id),
    destinations: await t.db
      .select()
      .from(payeeDestinations)
      .where(eq(payeeDestinations.accountId, account)),
    nonces: await t.db
      .select()
      .from(destinationNonces)
      .where(eq(destinationNonces.accountId, account)),
    webhooks: hooks,
    orchestratorWebhooks: await t.db
      .select()
      .from(webhooks)
      .where(eq(webhooks.orchestratorId, a.orchestratorId))
      .orderBy(webhooks.id),
    deliveries:
      hooks.length === 0
        ? []
        : await t.db
            .select()
            .from(webhookDeliveries)
            .where(
              inArray(
                webhookDeliveries.webhookId,
                hooks.map((hook) => hook.id),
              ),
            )
            .orderBy(webhookDeliveries.id),
    clientIds: withoutUsage(clients),
    links2: await t.db
      .select()
      .from(orchestratorClientLinks)
      .where(
        inArray(
          orchestratorClientLinks.clientIdId,
          clients.map((client) => client.id),
        ),
      ),
    feeConfigs: await t.db
      .select()
      .from(feeConfigs)
      .where(eq(feeConfigs.orchestratorId, a.orchestratorId))
      .orderBy(feeConfigs.id),
    brandings: await t.db
      .select()
      .from(brandings)
      .where(eq(brandings.orchestratorId, a.orchestratorId))
      .orderBy(brandings.id),
    payers: await t.db
      .select()
      .from(payers)
      .where(eq(payers.accountId, account))
      .orderBy(payers.id),
    paymentDetails: await t.db
      .select()
      .from(paymentDetails)
      .where(eq(paymentDetails.accountId, account))
      .orderBy(paymentDetails.id),
    apiKeys: withoutUsage(await t.db.select().from(apiKeys).where(eq(apiKeys.accountId, account))),
    sessions: (await t.db.select().from(sessions).where(eq(sessions.accountId, account))).map(
      ({ lastSeenAt: _ignored, ...rest }) => rest,
    ),
  };
}

function pathFor(route: RouteEntry, o: Objects): string {
  return route.url.replace(/:([A-Za-z]+)/g, (_match, param: string) => {
    const value = (() => {
      switch (param) {
        case 'id':
          if (route.url.startsWith('/v1/webhook')) return o.webhookId;
          if (route.url.startsWith('/v2/orchestrators/webhooks')) return o.orchestratorWebhookId;
          if (route.url.startsWith('/v2/payouts/recurring/')) return o.recurringPayoutId;
          if (route.url.endsWith('/orchestrator')) return o.linkedClientIdRowId;
          if (route.url.includes('/client-ids')) return o.clientIdRowId;
          if (route.url.startsWith('/v1/api-keys')) return o.apiKeyId;
          if (route.url.startsWith('/v2/orchestrators/fee-configs')) return o.feeConfigId;
          throw new Error(`${route.url}: which object is :id?`);
        case 'clientId':
          return o.linkedClientId;
        case 'clientIdId':
          return o.linkedClientIdRowId;
        case 'currencyId':
          return 'USDC-base';
        case 'token':
          if (route.url.startsWith('/v2/payouts/recurring/token/')) return o.recurringPayToken;
          return route.url.includes('/multicall-payouts/') ? o.multicallToken : o.token;
        case 'journeyId':
        case 'queryId':
          return o.journeyId;
        case 'requestId':
          if (route.url.startsWith('/v2/commerce-payments/')) return o.commerceRequestId;
          return route.method === 'PATCH' ? o.recurringRequestId : o.requestId;
        case 'destinationId':
          return o.destinationId;
        case 'paymentReference':
          return o.recurringPaymentReference;
        case 'paymentIntentId':
          return 'pi_0195f1a2';
        case 'payToken':
          return o.commercePayToken;
        case 'deliveryId':
          return o.deliveryId;
        case 'clientUserId':
          return o.clientUserId;
        default:
          throw new Error(`${route.url}: no fixture for path parameter :${param}`);
      }
    })();
    return encodeURIComponent(value);
  });
}

export function urlFor(route: RouteEntry, probe: Probe, o: Objects, caller: Tenant): string {
  const query = probe.query?.(o, caller);
  const path = pathFor(route, o);
  return query ? `${path}?${query}` : path;
}
