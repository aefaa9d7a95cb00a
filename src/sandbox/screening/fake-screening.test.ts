import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HYPERNATIVE_SCREEN_PATH } from '../../screening/hypernative.ts';
import { CONTROL_PATH, type FakeScreening, startFakeScreening } from './fake-screening.ts';

/** The sandbox's controls over HTTP: a new user sanctions a wallet or makes a provider fail. */

let fake: FakeScreening;
beforeAll(async () => {
  fake = await startFakeScreening();
});
afterAll(async () => {
  await fake?.close();
});

const post = (path: string, body: object) =>
  fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const screen = async () => post(HYPERNATIVE_SCREEN_PATH, { address: WALLET, chain: 'ethereum' });
const recommendation = async () =>
  ((await (await screen()).json()) as { data: { recommendation: string } }).data.recommendation;

describe('the fake providers’ controls', () => {
  it('sanctions and clears a wallet, and makes a provider fail and recover', async () => {
    expect(await recommendation()).toBe('Approve');
    expect((await post(`${CONTROL_PATH}sanction`, { address: WALLET })).status).toBe(200);
    expect(await recommendation()).toBe('Deny');
    await post(`${CONTROL_PATH}clear`, { address: WALLET });
    expect(await recommendation()).toBe('Approve');
    await post(`${CONTROL_PATH}fail`, { provider: 'hypernative' });
    expect((await screen()).status).toBe(503);
    await post(`${CONTROL_PATH}recover`, {});
    expect((await screen()).status).toBe(200);
    expect((await post(`${CONTROL_PATH}nothing`, {})).status).toBe(400);
  });
});
