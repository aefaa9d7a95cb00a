import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import { AppError } from '../../base/errors.ts';
import { verifyTimed } from '../../base/timed-signature.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { SecretText } from '../../config/crosschain.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { applyCallback, CallbackBody } from '../callbacks.ts';
import { SIGNATURE_HEADER } from '../signature.ts';

/** The raw body of each callback, as received: its signature covers these bytes. */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/**
 * `POST /v2/offramp/callbacks`: the off-ramp provider reports a transfer's progress. Public (the
 * provider holds no key of ours) but signed: without a valid `x-offramp-signature` it answers
 * 401 before reading the body, and nothing changes. Registered in a scope of its own, whose JSON
 * parser keeps the raw bytes for the signature.
 */
export function registerReceiveCallback(
  app: App,
  deps: {
    readonly db: Database;
    readonly chains: ChainRegistry;
    readonly clock: Clock;
    readonly secret: SecretText | null;
  },
): void {
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
      const raw = Buffer.isBuffer(body) ? body : Buffer.from(body);
      rawBodies.set(request, raw);
      try {
        done(null, JSON.parse(raw.toString('utf8')));
      } catch {
        // A signed body that is not JSON fails the schema; an unsigned one never gets there.
        done(null, null);
      }
    });
    scope.post(
      '/v2/offramp/callbacks',
      {
        schema: {
          tags: ['Crypto-to-fiat'],
          summary: 'The off-ramp provider reports a transfer’s progress (signed callback)',
          description:
            '`x-offramp-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under OFFRAMP_WEBHOOK_SECRET>`; 401 without a valid one. A state the transfer is past, or a repeat, changes nothing (`changed: false`).',
          headers: Type.Object({ [SIGNATURE_HEADER]: Type.Optional(Type.String()) }),
          body: CallbackBody,
          response: { 200: Type.Object({ received: Type.Boolean(), changed: Type.Boolean() }) },
        },
        preValidation: async (request) => {
          const header = request.headers[SIGNATURE_HEADER];
          const raw = rawBodies.get(request);
          const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
          if (
            deps.secret === null ||
            raw === undefined ||
            !verifyTimed(
              deps.secret.reveal(),
              typeof header === 'string' ? header : undefined,
              raw,
              nowSeconds,
            )
          ) {
            throw new AppError('invalid_offramp_signature', 'Invalid off-ramp signature', {
              errors: [{ field: SIGNATURE_HEADER, message: 'Invalid off-ramp signature' }],
            });
          }
        },
      },
      async (request) => {
        const { changed } = await applyCallback(deps, request.body);
        return { received: true, changed };
      },
    );
  });
}
