import { Type } from 'typebox';

/** What the `/v2/orchestrators/webhooks` routes share (api-facts §11.6). */

/** The reference's example object, field for field. */
export const OrchestratorWebhookSchema = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    isActive: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const WebhookAnswer = Type.Object(
  { webhook: OrchestratorWebhookSchema },
  { additionalProperties: false },
);

export const WebhookIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
