import { Type } from 'typebox';
import { RetryPolicySchema } from './retry-policy.ts';

/**
 * An endpoint as the list and the switch answer it (registrations.ts `webhookBody`): the Auth
 * API 0.14.0 list item (`id`, `url`, `secret`, `isActive`, `createdAt`), with `secret` masked
 * (it is shown whole only once, at creation), and ours beside it: `active` (the name this
 * service answered before `isActive`), the client ID the endpoint belongs to, and its retry
 * policy (retry-policy.ts).
 */
export const WebhookSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  secret: Type.String({
    description:
      'Masked: whsec_, eight *, then the last 4 characters of the signing secret (none when it no longer opens with SECRET_KEY)',
  }),
  isActive: Type.Boolean(),
  active: Type.Boolean({ description: 'The same as isActive' }),
  clientId: Type.Union([Type.String(), Type.Null()], {
    description: 'The client ID whose requests it hears of; null: every request of the account',
  }),
  retryPolicy: RetryPolicySchema,
  createdAt: Type.String({ format: 'date-time' }),
});
