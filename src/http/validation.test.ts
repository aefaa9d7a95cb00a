import Fastify from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validationOptions } from './validation.ts';

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
