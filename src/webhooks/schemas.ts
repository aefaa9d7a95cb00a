import { Type } from 'typebox';

/** An endpoint as the list and the switch answer it (webhookBody). */
export const WebhookSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  active: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});
