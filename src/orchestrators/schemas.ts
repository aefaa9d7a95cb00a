import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';

/** What the orchestrator routes share: every one is the calling orchestrator's (`x-orchestrator-key`). */

export const ORCHESTRATOR_AUTH = ['orchestratorKey'] as const;
export const ORCHESTRATOR_TAGS = ['V2/Orchestrators'];

export const LinkSchema = Type.Object(
  {
    clientId: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('unlinked')]),
  },
  { additionalProperties: false },
);

export function orchestratorIdOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal?.kind !== 'orchestratorKey') throw new Error('route needs an orchestrator key');
  return principal.orchestratorId;
}
