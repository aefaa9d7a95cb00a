import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { linkCallerOf } from '../../secure-payments/link-caller.ts';
import { BLOCK_REASONS } from '../../secure-payments/link-children.ts';
import { LINK_AUTH, LINK_TAGS } from '../../secure-payments/schemas.ts';
import { createMulticall, EXECUTION_KINDS, type ExecutionKind } from '../multicall/create.ts';
import { RECOVERY_ACTIONS } from '../multicall/reasons.ts';
import { literals } from '../multicall/schemas.ts';

const CreateMulticallBody = Type.Object(
  {
    childTokens: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 2,
      maxItems: 1000,
      description:
        'Pending single payout links of the account; at most MULTICALL_MAX_CHILDREN (150) are accepted, 20 for cross-chain (evm_cross_chain, or children on several networks)',
    }),
    requestedExecutionKind: Type.Optional(
      Type.Unsafe<ExecutionKind>({
        type: 'string',
        enum: [...EXECUTION_KINDS],
        description:
          'evm_cross_chain: children on any EVM networks (in tokens, with the fee proxy), paid from one source chain and token chosen at /pay; omitted: derived from the children (Tron, several networks, one network)',
      }),
    ),
  },
  { additionalProperties: false },
);

const CreatedMulticallResponse = Type.Object({
  type: Type.Literal('multicall'),
  token: Type.String(),
  securePaymentUrl: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('expired')]),
  expiresAt: Type.String({ format: 'date-time' }),
  createdAt: Type.String({ format: 'date-time' }),
  items: Type.Array(
    Type.Object({
      securePaymentToken: Type.String(),
      requestId: Type.String(),
      position: Type.Integer({ minimum: 0 }),
      eligibility: Type.Literal('eligible'),
    }),
  ),
});

/** 400 of the create route: the envelope, and for refused children `failures` (and `cap`). */
const MulticallFailureResponse = Type.Object({
  statusCode: Type.Integer(),
  message: Type.String(),
  error: Type.String(),
  code: Type.String(),
  errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  failures: Type.Optional(
    Type.Array(
      Type.Object({
        securePaymentToken: Type.String({ description: '"*" for a failure of the whole list' }),
        reason: Type.Union([literals(BLOCK_REASONS), Type.Literal('too_many_children')]),
        message: Type.String({ description: 'Ours: the reason in English' }),
        messageKey: Type.String(),
        context: Type.Record(Type.String(), Type.Unknown()),
        recoveryAction: literals(RECOVERY_ACTIONS),
      }),
    ),
  ),
  cap: Type.Optional(
    Type.Object({
      type: Type.Literal('child_count'),
      maximum: Type.Integer(),
      actual: Type.Integer(),
      reduceBy: Type.Integer(),
    }),
  ),
});

export function registerCreateMulticallPayout(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    payUrl: string;
    /** The most children a multicall payout takes (`MULTICALL_MAX_CHILDREN`). */
    maxChildren: number;
  },
): void {
  app.post(
    '/v2/secure-payments/multicall-payouts',
    {
      config: { auth: LINK_AUTH },
      schema: {
        tags: LINK_TAGS,
        summary:
          'Pay several pending payout links in one go: a multicall parent link (one network, or several paid from one source chain)',
        description:
          'Every child is checked; refused children are all listed in a 400 `multicall_validation_failed` (`failures`, and `cap` past MULTICALL_MAX_CHILDREN, or past 20 for cross-chain: evm_cross_chain asked, or children on several networks). A cross-chain parent is paid with `/pay?chain=&token=`: each child on another network or token routed through the bridge and checked, Variant C with `bridgeTxIndices` and `destinationCalls`.',
        body: CreateMulticallBody,
        response: { 201: CreatedMulticallResponse, 400: MulticallFailureResponse },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createMulticall(deps, linkCallerOf(request), request.body)),
  );
}
