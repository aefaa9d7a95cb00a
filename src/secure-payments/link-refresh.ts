import { legDestination } from '../crosschain/leg-route.ts';
import { type RefreshedStep, refreshedStep } from '../crosschain/route-answer.ts';
import type { LinkScope } from '../http/principal.ts';
import { type CalldataDeps, linkFees } from './calldata.ts';
import { assertNotMulticall, assertNotTron, assertOneLeg } from './link-crosschain.ts';
import { assertPayable, completedError, linkLegs, loadLink } from './links.ts';

/**
 * `POST /v2/secure-payments/{token}/refresh-step-transaction`: a cross-chain step this server
 * handed out for the link (`metadata.rawStep` of `/pay`), with a fresh source transaction from
 * the aggregator, checked against the link again as a new route is. Only the step's id is
 * read from the body: the step refreshed is the one payreq kept, so a step altered by its
 * caller refreshes nothing but what was validated. 400 `crosschain_route_gone` when the step
 * is unknown here (another link's, from another server process, or handed out over an hour
 * ago) or the aggregator no longer has it.
 */
export async function refreshLinkStep(
  deps: CalldataDeps,
  scope: LinkScope,
  token: string,
  stepId: string,
): Promise<RefreshedStep> {
  const link = await loadLink(deps.db, deps.clock, scope, token);
  await assertPayable(deps, link);
  assertNotTron(link);
  assertNotMulticall(link);
  const legs = linkLegs(deps.chains, link, deps.clock.now());
  const [first] = legs;
  if (!first) throw await completedError(deps, link);
  assertOneLeg(legs);
  const fees = await linkFees(deps.db, link, first);
  const route = await deps.routes.refresh(
    link.row.id,
    stepId,
    legDestination(deps.chains, first, fees?.calls ?? []),
  );
  return refreshedStep(route);
}
