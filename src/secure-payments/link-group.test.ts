import { eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import {
  apiKey,
  create,
  destination,
  linkDraft,
  rowCounts,
  setupSecurePaymentsApp,
  shop,
  t,
} from '../../test/secure-payments.ts';
import { requests, securePayments } from '../db/schema.ts';
import { linkWriter, writeLink } from './link-group.ts';

/**
 * Group commit of links (link-group.ts, db/group-commit.ts): links made at the same moment are
 * written together, and each caller still gets its own link or its own error.
 */

setupSecurePaymentsApp();

describe('group commit of links', () => {
  it('writes concurrent creations in fewer writes than links, each answered with its own', async () => {
    const d = await destination(shop);
    const before = await rowCounts();
    const writes = linkWriter(t.db).stats.writes;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        create(apiKey(shop), {
          requests: [{ destinationId: d.destinationId, amount: `${i + 1}` }],
          reference: `group-${i}`,
        }),
      ),
    );
    expect(answers.map((res) => res.statusCode)).toEqual(Array(20).fill(201));
    expect(await rowCounts()).toEqual({
      links: before.links + 20,
      requests: before.requests + 20,
    });
    // Each answer names its own link, holding the amount its caller sent.
    for (const [i, res] of answers.entries()) {
      const { token, requestIds } = res.json() as { token: string; requestIds: string[] };
      const [row] = await t.db
        .select({ reference: securePayments.reference, amount: requests.expectedAmount })
        .from(securePayments)
        .innerJoin(requests, eq(requests.securePaymentId, securePayments.id))
        .where(eq(securePayments.token, token));
      expect(row).toEqual({ reference: `group-${i}`, amount: BigInt(i + 1) * 1_000_000n });
      const [request] = await t.db
        .select({ token: securePayments.token })
        .from(requests)
        .innerJoin(securePayments, eq(requests.securePaymentId, securePayments.id))
        .where(inArray(requests.requestId, requestIds));
      expect(request?.token).toBe(token);
    }
    expect(linkWriter(t.db).stats.writes - writes).toBeLessThan(20);
  });

  it("fails only the caller whose row the database refuses; the others' links are written", async () => {
    const d = await destination(shop);
    const taken = linkDraft(d.destinationId);
    expect(await writeLink(t.db, taken.link, taken.items)).not.toBeNull();
    const stats = linkWriter(t.db).stats;
    const retried = stats.retriedGroups;
    const writes = stats.writes;
    // Ten links at once, the fifth under a token another link has (a unique index refuses it).
    const drafts = Array.from({ length: 10 }, (_, i) =>
      i === 4 ? linkDraft(d.destinationId, taken.link.token) : linkDraft(d.destinationId),
    );
    const outcomes = await Promise.allSettled(
      drafts.map(({ link, items }) => writeLink(t.db, link, items)),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(
      drafts.map((_, i) => (i === 4 ? 'rejected' : 'fulfilled')),
    );
    // They went as groups, and a group that held the bad row was written again link by link.
    expect(stats.retriedGroups).toBeGreaterThan(retried);
    expect(stats.writes - writes).toBeGreaterThan(0);
    const tokens = drafts.map(({ link }) => link.token);
    const rows = await t.db
      .select({ token: securePayments.token, id: securePayments.id })
      .from(securePayments)
      .where(inArray(securePayments.token, tokens));
    expect(rows.map((row) => row.token).sort()).toEqual([...new Set(tokens)].sort());
    // The taken token still names the first link alone, and every good link has its request.
    expect(rows.filter((row) => row.token === taken.link.token)).toHaveLength(1);
    for (const [i, outcome] of outcomes.entries()) {
      if (i === 4 || outcome.status !== 'fulfilled') continue;
      expect(outcome.value?.id).toBe(rows.find((row) => row.token === tokens[i])?.id);
      const written = await t.db
        .select({ id: requests.id })
        .from(requests)
        .where(inArray(requests.requestId, outcome.value?.requestIds ?? []));
      expect(written).toHaveLength(1);
    }
  });

  it('answers null, writing nothing, for a link whose destination is gone, in a group of good ones', async () => {
    const d = await destination(shop);
    const retried = linkWriter(t.db).stats.retriedGroups;
    const drafts = Array.from({ length: 6 }, (_, i) =>
      linkDraft(i === 2 ? 'unknown-destination' : d.destinationId),
    );
    const before = await rowCounts();
    const answers = await Promise.all(
      drafts.map(({ link, items }) => writeLink(t.db, link, items)),
    );
    expect(answers.map((answer) => answer === null)).toEqual(drafts.map((_, i) => i === 2));
    expect(await rowCounts()).toEqual({ links: before.links + 5, requests: before.requests + 5 });
    // Not a failure of the group: the statement itself left the link out.
    expect(linkWriter(t.db).stats.retriedGroups).toBe(retried);
  });
});
