import Fastify from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../test/app.ts';
import { ValidationError } from '../base/errors.ts';
import { FEE_CONFIGS_URL, NewFeeConfigBody } from '../fees/schemas.ts';
import { createOrchestrator } from '../orchestrators/orchestrators.ts';
import { parseBody, validationOptions } from './validation.ts';

/**
 * Union answers picked by their discriminator: each branch writes only its own properties, as
 * the union's serializer does, and an answer no branch names still goes through the union.
 */

const Shared = Type.Object(
  { kind: Type.Literal('shared'), n: Type.Integer() },
  { $id: 'SharedBranch', additionalProperties: false },
);
const Answer = Type.Union([
  Type.Object({
    kind: Type.Literal('one'),
    value: Type.String(),
    at: Type.String({ format: 'date-time' }),
  }),
  Type.Object({ kind: Type.Literal('many'), values: Type.Array(Type.String()) }),
  Type.Ref('SharedBranch'),
  // One branch may go without the property: an answer without it is that branch's.
  Type.Object({ total: Type.Integer() }, { additionalProperties: false }),
]);

const app = Fastify({ ...validationOptions() });
let answer: unknown;

beforeAll(async () => {
  app.addSchema(Shared);
  app.get('/answer', { schema: { response: { 200: Answer } } }, async () => answer);
  // A second route that names the shared branch on its own: compiling the union must not
  // take it away from this one.
  app.get(
    '/shared',
    { schema: { response: { 200: Type.Ref('SharedBranch') } } },
    async () => answer,
  );
  await app.ready();
});
afterAll(() => app.close());

const get = async (url: string, body: unknown) => {
  answer = body;
  return app.inject({ method: 'GET', url });
};

describe('discriminated union answers', () => {
  it('writes each branch with its own properties only', async () => {
    const one = await get('/answer', {
      kind: 'one',
      value: 'a',
      at: '2026-11-27T00:00:00.000Z',
      secret: 'left out',
    });
    expect(one.json()).toEqual({ kind: 'one', value: 'a', at: '2026-11-27T00:00:00.000Z' });
    const many = await get('/answer', { kind: 'many', values: ['x', 'y'], value: 'left out' });
    expect(many.json()).toEqual({ kind: 'many', values: ['x', 'y'] });
    const shared = await get('/answer', { kind: 'shared', n: 3, values: ['left out'] });
    expect(shared.json()).toEqual({ kind: 'shared', n: 3 });
    expect((await get('/shared', { kind: 'shared', n: 4 })).json()).toEqual({
      kind: 'shared',
      n: 4,
    });
    expect((await get('/answer', { total: 7, values: ['left out'] })).json()).toEqual({ total: 7 });
  });

  it('sends an answer no branch names through the union, as before', async () => {
    const res = await get('/answer', { kind: 'unknown', value: 'a' });
    expect(res.statusCode).toBe(500);
  });
});

describe('parseBody', () => {
  it('refuses a body with the field errors its route answers', async () => {
    const t = await createTestApp();
    try {
      const { orchestratorKey } = await createOrchestrator(t.db, 'Platform');
      const recipient = { evmRecipientAddress: '0x2546BcD3c84621e976D8185a91A922aE77ECEc30' };
      const bodies = [
        { flow: 'incoming', feeBearer: 'payer', bps: 10_001, ...recipient },
        { flow: 'sideways', feeBearer: 'payee', bps: 1.5, ...recipient },
        { flow: 'incoming', feeBearer: 'payer', bps: '5', usdCap: '', ...recipient },
        { feeBearer: 'payer', clientId: 'x'.repeat(129) },
      ];
      for (const body of bodies) {
        const res = await t.app.inject({
          method: 'POST',
          url: FEE_CONFIGS_URL,
          headers: { 'x-orchestrator-key': orchestratorKey },
          payload: body,
        });
        expect(res.statusCode).toBe(400);
        let refused: unknown;
        try {
          parseBody({ method: 'POST', url: FEE_CONFIGS_URL, schema: NewFeeConfigBody }, body);
        } catch (error) {
          refused = error;
        }
        expect(refused).toBeInstanceOf(ValidationError);
        const { message, errors } = refused as ValidationError;
        expect({ message, errors }).toEqual({
          message: res.json().message,
          errors: res.json().errors,
        });
      }
      const good = { flow: 'incoming', feeBearer: 'payer', bps: 5, ...recipient };
      expect(
        parseBody({ method: 'POST', url: FEE_CONFIGS_URL, schema: NewFeeConfigBody }, good),
      ).toEqual(good);
    } finally {
      await t.close();
    }
  });
});
