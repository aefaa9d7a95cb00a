import { eq } from 'drizzle-orm';
import { securePayments } from '../db/schema.ts';
import { checkLinkPayer, type GateDeps } from './gate.ts';

/**
 * A link's payer rules hold on its requests' own routes too (`GET /v2/request/{id}/pay`,
 * `…/routes` and their v1 forms): the request id of a link is shown to its payers, so a
 * wallet the link refuses gets no calldata nor routes through them either. Same answers and
 * events as the link's `/pay`. A request of no link, or of a link that checks nobody, passes.
 */
export type RequestGateDeps = GateDeps;

export async function checkRequestPayer(
  deps: RequestGateDeps,
  row: { readonly securePaymentId: string | null; readonly requestId: string },
  wallet: string | undefined,
): Promise<void> {
  if (row.securePaymentId === null) return;
  const [link] = await deps.db
    .select()
    .from(securePayments)
    .where(eq(securePayments.id, row.securePaymentId));
  if (!link || link.screening === null) return;
  await checkLinkPayer(deps, { ...link, requestId: row.requestId }, { wallet });
}
