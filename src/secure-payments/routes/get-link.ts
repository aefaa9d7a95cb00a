import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import { LinkBranding } from '../../branding/schemas.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { PaymentOptionsReader } from '../../crosschain/payment-options.ts';
import type { RouteQuoter } from '../../crosschain/quote-route.ts';
import type { Database } from '../../db/client.ts';
import { FeeLegs, NullableFeePlan } from '../../fees/plan-schema.ts';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { linkDisplay } from '../display.ts';
import type { ParentLinks } from '../parent-links.ts';
import {
  CalldataInput,
  CompletedResponse,
  InProgressResponse,
  LINK_AUTH,
  LINK_TAGS,
  TokenParams,
} from '../schemas.ts';

const Destination = Type.Union([
  Type.Object({
    destinationId: Type.Optional(Type.String()),
    payeeAddress: Type.String(),
    tokenAddress: Type.String(),
    walletAddress: Type.String(),
    network: Type.String(),
    isMasked: Type.Boolean(),
  }),
  Type.Null(),
]);

const DisplayCommon = {
  status: Type.String(),
  token: Type.String(),
  redirectUrl: Type.Union([Type.String(), Type.Null()]),
  redirectLabel: Type.String(),
  branding: LinkBranding,
  requestIds: Type.Array(Type.String()),
  network: Type.String(),
  reference: Type.Union([Type.String(), Type.Null()]),
  feePlan: NullableFeePlan,
  accessDecision: Type.Optional(
    Type.Object(
      {
        status: Type.Union([
          Type.Literal('approved'),
          Type.Literal('rejected'),
          Type.Literal('error'),
        ]),
        reasonCode: Type.String(),
        provider: Type.Union([Type.String(), Type.Null()]),
        walletResults: Type.Array(
          Type.Object({
            walletAddress: Type.String(),
            walletType: Type.Union([Type.Literal('eoa'), Type.Literal('smart_account')]),
            parentWalletAddress: Type.Union([Type.String(), Type.Null()]),
            status: Type.Union([
              Type.Literal('approved'),
              Type.Literal('rejected'),
              Type.Literal('error'),
            ]),
            reasonCode: Type.String(),
            provider: Type.Union([Type.String(), Type.Null()]),
            evaluatedAt: Type.String(),
          }),
        ),
      },
      {
        description:
          'With a `wallet` off the link’s allowlist: `rejected`, `wallet_not_allowed` (and the merchant hears secure_payment.access_rejected). Absent otherwise',
      },
    ),
  ),
  paymentOptions: Type.Optional(
    Type.Record(
      Type.String(),
      Type.Record(
        Type.String(),
        Type.Object({
          balance: Type.String({ description: 'The payer’s balance, in the token’s units' }),
          hasEnoughBalance: Type.Boolean({ description: 'balance ≥ neededAmount' }),
          neededAmount: Type.String({
            description:
              'What paying from this token takes: on the link’s own chain in its own currency, exactly what /pay asks (amounts due and unpaid fee legs); elsewhere, the same value in this token before the bridge’s fee',
          }),
        }),
      ),
      {
        description:
          'With `wallet`: per source chain (`BASE`, `ARBITRUM`, …; the link’s own chain first) and token (`USDC`, `USDT`, `USDT0`, …), the payer’s balance (the eoaWallet’s, when given) and what paying from it takes. One Multicall3 read per chain, chains at once; a chain that does not answer within PAYMENT_OPTIONS_TIMEOUT_MS is left out. Empty on Tron links and links written in fiat.',
      },
    ),
  ),
  feeLegs: Type.Optional(FeeLegs),
  bridgeTransfers: Type.Optional(
    Type.Array(
      Type.Object({
        txHash: Type.String({ description: 'The source transaction the intent recorded' }),
        status: Type.Union(
          ['bridging', 'delivered', 'executed', 'failed', 'refunded'].map((s) => Type.Literal(s)),
        ),
      }),
      {
        description:
          'Ours: the latest transfers from other networks recorded on the link (`POST /{token}/intent` with `evm_cross_chain`), newest first, and where each stands: failed and refunded ones leave the link payable (docs/guides/crosschain.md#following-a-transfer)',
      },
    ),
  ),
  expiresAt: Type.String({ format: 'date-time' }),
  payout: Type.Optional(
    Type.Literal(true, { description: 'Ours: present on payout links (money going out)' }),
  ),
  creatorWalletAddress: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'Ours, on payout links: the only wallet that may pay the link',
    }),
  ),
};

const DisplayResponse = Type.Union([
  Type.Object({
    paymentType: Type.Literal('single'),
    ...DisplayCommon,
    payee: Type.String(),
    amount: Type.String({
      description:
        'What the request is for: in paymentCurrency, or in invoiceCurrency when the link is in fiat (its decimals: "25.5" USD, "15000" JPY)',
    }),
    paymentCurrency: Type.String(),
    isNativeCurrency: Type.Boolean(),
    destination: Destination,
    invoiceCurrency: Type.Optional(
      Type.String({
        description:
          'Ours, on links written in fiat: the fiat code (USD, EUR, GBP, CNY, JPY). The payer pays in paymentCurrency at the on-chain Chainlink rate; /pay quotes it (metadata.requiredAmount, conversionRate, rateTimestamp)',
      }),
    ),
    invoiceAmount: Type.Optional(
      Type.String({
        description: 'Ours, on links written in fiat: the amount in invoiceCurrency (its decimals)',
      }),
    ),
  }),
  Type.Object({
    paymentType: Type.Literal('batch'),
    ...DisplayCommon,
    payees: Type.Array(Type.String()),
    amounts: Type.Array(Type.String()),
    paymentCurrencies: Type.Array(Type.String()),
    invoiceCurrencies: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Ours, when a request is written in fiat: what each amount is in (its paymentCurrency for the others)',
      }),
    ),
    isNativeCurrency: Type.Array(Type.Boolean()),
    destinations: Type.Array(Destination),
  }),
  Type.Ref('MulticallView'),
]);

export function registerGetLink(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    parents: ParentLinks;
    paymentOptions: PaymentOptionsReader;
    routes: RouteQuoter;
    wakeDispatcher?: (() => void) | undefined;
  },
): void {
  app.get(
    '/v2/secure-payments/:token',
    {
      config: { auth: LINK_AUTH, payPage: true },
      schema: {
        tags: LINK_TAGS,
        summary: 'What the pay page shows: amounts, payees, status, branding',
        description:
          'Takes the payer inputs of /pay, checked the same way (`chain` and `token` change nothing in the answer). With `wallet`, single and batch links carry `paymentOptions`: the payer’s balance per source chain and token and what paying from it takes (docs/guides/browser-wallet.md#balances-per-chain-and-token).',
        params: TokenParams,
        querystring: Type.Object(CalldataInput, { additionalProperties: false }),
        response: {
          200: DisplayResponse,
          403: { description: 'Expired or no longer payable', $ref: 'ErrorEnvelope' },
          409: { ...CompletedResponse, description: 'Already completed' },
          423: InProgressResponse,
        },
      },
    },
    async (request) =>
      linkDisplay(deps, linkScopeOf(request), request.params.token, request.query, request.log),
  );
}
