import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, ValidationError } from '../../base/errors.ts';
import type { Currency } from '../../chains/currencies.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { ProtocolFeeConfig } from '../../config/protocol-fee.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { parseAmount } from '../../payments/amounts.ts';
import { isPlannable } from '../plan-amount.ts';
import { feePlanFor } from '../plan-for.ts';
import { FeePlanSchema } from '../plan-schema.ts';

/**
 * The credentials of a link's creation (secure-payments' LINK_AUTH, which this folder may not
 * import: secure-payments imports the plan from here), and its tag.
 */
const PREVIEW_AUTH = ['clientId', 'apiKey', 'orchestratorPair', 'session'] as const;
const PREVIEW_TAGS = ['V2/Secure Payment'];

const PreviewBody = Type.Object(
  {
    amount: Type.String({ maxLength: 100, description: 'A decimal string greater than 0' }),
    currency: Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'A USD stablecoin: its id (USDC-base, USDT-tron: the network decides the Tron sponsorship fee) or its symbol (USDC: priced as on an EVM network)',
    }),
    flow: Type.Union([Type.Literal('get_paid'), Type.Literal('pay')]),
    defaultFeeBearer: Type.Optional(Type.Union([Type.Literal('payer'), Type.Literal('payee')])),
  },
  { additionalProperties: false },
);

/** The currency the body names (id first, then symbol), if it can carry a plan. */
function plannableCurrency(chains: ChainRegistry, name: string): Currency {
  const byId = chains.currency(name);
  const candidates = byId ? [byId] : chains.currenciesWithSymbol(name);
  const found = candidates.find((c) => isPlannable(c, chains.isCurated(c)));
  if (found === undefined) {
    throw new AppError(
      'unsupported_fee_currency',
      `${name} is not a supported stablecoin: fee plans are for USDC, USDT, USDT0 and DAI`,
    );
  }
  return found;
}

function pairOf(request: FastifyRequest) {
  const principal = request.principal;
  return principal?.kind === 'orchestratorPair'
    ? { orchestratorId: principal.orchestratorId, clientIdId: principal.clientId.id }
    : null;
}

/** What a link or payout of these inputs would carry as its fee plan: nothing is written. */
export function registerPreviewFees(
  app: App,
  deps: { db: Database; chains: ChainRegistry; protocolFee: ProtocolFeeConfig | null },
): void {
  app.post(
    '/v2/secure-payments/fees/preview',
    {
      config: { auth: PREVIEW_AUTH },
      schema: {
        tags: PREVIEW_TAGS,
        summary: 'Preview the fee plan of a payment',
        description:
          'The plan a link (get_paid) or payout (pay) of this amount would capture, by the same resolver: the orchestrator’s fee configs with paired auth (x-orchestrator-key + x-client-id), the protocol fee in any case. Side-effect free.',
        body: PreviewBody,
        response: {
          200: FeePlanSchema,
          400: {
            description: 'A bad amount, or a currency that is not a supported stablecoin',
            $ref: 'ErrorEnvelope',
          },
        },
      },
    },
    async (request) => {
      const body = request.body;
      const currency = plannableCurrency(deps.chains, body.currency);
      const amount = parseAmount(body.amount, currency.decimals);
      if (!amount.ok) throw new ValidationError([{ field: 'amount', message: amount.message }]);
      return feePlanFor(deps, {
        pair: pairOf(request),
        flow: body.flow,
        defaultFeeBearer: body.defaultFeeBearer,
        amount: amount.value,
        currency,
      });
    },
  );
}
