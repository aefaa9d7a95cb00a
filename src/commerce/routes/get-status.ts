import { Type } from 'typebox';
import { scopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import type { CommerceDeps } from '../deps.ts';
import { COMMERCE_AUTH, COMMERCE_TAGS, CommerceParams, CommerceStatus } from '../schemas.ts';
import { findCommercePayment, loadState } from '../store.ts';
import { statusView } from '../view.ts';

const EVENT_TYPES = [
  'AUTHORIZED',
  'CAPTURED',
  'VOIDED',
  'REFUNDED',
  'EXPIRED',
  'RECLAIMED',
  'FAILED',
] as const;

const EventType = Type.Enum(EVENT_TYPES);

const Event = Type.Object({
  type: EventType,
  timestamp: Type.String(),
  transactionHash: Type.Optional(Type.String()),
  blockNumber: Type.Optional(
    Type.String({ description: 'Absent until detection has seen the transaction’s block' }),
  ),
});

const StatusResponse = Type.Object({
  type: Type.Optional(
    Type.Enum(EVENT_TYPES, {
      description:
        'The latest event’s; before any, absent unless the payment expired or failed without one (`status` says where it stands)',
    }),
  ),
  timestamp: Type.Optional(
    Type.String({ description: 'When the latest event happened; absent with `type`' }),
  ),
  transactionHash: Event.properties.transactionHash,
  blockNumber: Event.properties.blockNumber,
  requestId: Type.String(),
  status: CommerceStatus,
  payer: Type.String({ description: 'Empty until the buyer is known' }),
  merchant: Type.String(),
  operator: Type.String(),
  token: Type.String(),
  currency: Type.String(),
  network: Type.String(),
  amount: Type.String(),
  maxAmount: Type.String(),
  authorizedAmount: Type.String(),
  capturedAmount: Type.String(),
  capturableAmount: Type.String(),
  refundedAmount: Type.String(),
  refundableAmount: Type.String(),
  voidedAmount: Type.String(),
  reclaimedAmount: Type.String(),
  paymentReference: Type.String(),
  commercePaymentHash: Type.String({ description: 'Empty until the buyer is known' }),
  preApprovalExpiry: Type.String(),
  authorizationExpiry: Type.String(),
  refundExpiry: Type.String(),
  canCapture: Type.Boolean(),
  canVoid: Type.Boolean(),
  canRefund: Type.Boolean(),
  canReclaim: Type.Boolean({
    description:
      'payreq’s addition: the payer may reclaim what is still held (`reclaimPayment`): something is held and the chain’s clock has passed `authorizationExpiry`, whatever `status` says (a partly captured hold stays `PAID`)',
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  events: Type.Array(Event),
});

export function registerGetStatus(app: App, deps: CommerceDeps): void {
  app.get(
    '/v2/commerce-payments/:requestId/status',
    {
      config: { auth: COMMERCE_AUTH },
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'Where a commerce payment stands: its state, amounts, expiries and events',
        description:
          '`type`, `timestamp`, `transactionHash` and `blockNumber` repeat the latest event. Before the first they are absent (0.31.0’s `type` has no value for none yet), save `type` `EXPIRED` (at the pre-approval’s expiry) or `FAILED` (when the authorization failed); `status` always says where the payment stands.',
        params: CommerceParams,
        response: { 200: StatusResponse },
      },
    },
    async (request) => {
      const payment = await findCommercePayment(
        deps.db,
        scopeOf(request),
        request.params.requestId,
      );
      return statusView(
        deps.chains,
        await loadState(deps.db, payment, await deps.chainTime.now(payment.network)),
      );
    },
  );
}
