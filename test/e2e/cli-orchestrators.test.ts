import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { emptyPostgresDatabase } from '../database.ts';
import {
  MANY_PROCESSES,
  processEnv,
  type Result,
  runCli,
  type ServerProcess,
  startServer,
} from '../process.ts';

/**
 * An operator running a platform with the CLI alone, with real processes: an orchestrator is
 * created, listed and its key rotated (the server then refuses the old key and takes the new
 * one), and its fee configs are created, refused, listed and disabled through the API's own
 * checks, which the server then answers the same.
 */

const source = inject('testDatabase');
// As in cli-and-server.test.ts: the embedded database in the PGlite run, Postgres in the other.
const backend = source.kind;

const EVM = '0x2546BcD3c84621e976D8185a91A922aE77ECEc30';
const TRON = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

interface FeeConfigJson {
  readonly id: string;
  readonly status: string;
  readonly [field: string]: unknown;
}

describe(`orchestrators and fee configs from the CLI on ${backend}`, MANY_PROCESSES, () => {
  let env: NodeJS.ProcessEnv;
  let orchestratorId: string;
  let oldKey: string;
  let newKey: string;
  let unlinkedClientId: string;
  let created: FeeConfigJson[] = [];
  let server: ServerProcess | undefined;

  const cli = (args: readonly string[]) => runCli(args, env);
  const json = <T>(result: Result): T => {
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout) as T;
  };
  const feeConfigs = async () =>
    json<{ feeConfigs: FeeConfigJson[] }>(
      await cli(['fee-config', 'list', '--orchestrator', orchestratorId, '--json']),
    ).feeConfigs;

  it('creates an orchestrator and lists it with its key prefix, never the key', async () => {
    env = processEnv({}, { migrated: backend === 'pglite' });
    if (backend === 'postgres') {
      const database = await emptyPostgresDatabase();
      cleanup.push(database.drop);
      env.DATABASE_URL = database.url;
    }
    const orchestrator = json<{ orchestratorId: string; orchestratorKey: string }>(
      await cli(['orchestrator', 'create', '--name', 'Platform', '--json']),
    );
    orchestratorId = orchestrator.orchestratorId;
    oldKey = orchestrator.orchestratorKey;

    const listed = await cli(['orchestrator', 'list', '--json']);
    expect(json(listed)).toEqual({
      orchestrators: [
        {
          orchestratorId,
          name: 'Platform',
          accountId: null,
          createdAt: expect.any(String),
          activeKeys: [
            {
              keyId: expect.any(String),
              prefix: oldKey.slice(0, 12),
              createdAt: expect.any(String),
              lastUsedAt: null,
            },
          ],
        },
      ],
    });
    const text = await cli(['orchestrator', 'list']);
    expect(text.stdout).toContain(`${orchestratorId}  Platform (created `);
    expect(text.stdout).toContain(`key ${oldKey.slice(0, 12)}…`);
    for (const result of [listed, text]) expect(result.stdout).not.toContain(oldKey);
  });

  it('rotates the key: a new one shown once, the old one revoked', async () => {
    const rotated = json<{ orchestratorId: string; orchestratorKey: string; revoked: number }>(
      await cli(['orchestrator', 'rotate-key', '--id', orchestratorId, '--json']),
    );
    expect(rotated).toEqual({ orchestratorId, orchestratorKey: expect.any(String), revoked: 1 });
    newKey = rotated.orchestratorKey;
    expect(newKey).toMatch(/^orc_[A-Za-z0-9_-]{43}$/);
    expect(newKey).not.toBe(oldKey);
    const listed = json<{ orchestrators: { activeKeys: { prefix: string }[] }[] }>(
      await cli(['orchestrator', 'list', '--json']),
    );
    expect(listed.orchestrators[0]?.activeKeys.map((key) => key.prefix)).toEqual([
      newKey.slice(0, 12),
    ]);

    const unknown = randomUUID();
    const refused = await cli(['orchestrator', 'rotate-key', '--id', unknown]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`payreq: no orchestrator ${unknown}`);
  });

  it('creates fee configs as the API does', async () => {
    const account = json<{ accountId: string }>(
      await cli(['account', 'create', '--name', 'Shop', '--json']),
    );
    unlinkedClientId = json<{ clientId: string }>(
      await cli(['client-id', 'create', '--account', account.accountId, '--json']),
    ).clientId;
    const create = (flags: readonly string[]) =>
      cli(['fee-config', 'create', '--orchestrator', orchestratorId, ...flags, '--json']);
    const payer = json<FeeConfigJson>(
      await create([
        ...['--flow', 'incoming', '--bearer', 'payer', '--bps', '50'],
        ...['--usd-cap', '0.40', '--evm-recipient', EVM.toLowerCase()],
      ]),
    );
    // The API's answer: the reference's fields, the recipient checksummed.
    expect(payer).toEqual({
      id: expect.any(String),
      feeType: 'orchestrator_fee',
      bps: 50,
      usdCap: '0.4',
      feeBearer: 'payer',
      evmRecipientAddress: EVM,
      tronRecipientAddress: null,
      status: 'active',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      orchestratorId,
      flow: 'incoming',
      clientIdId: null,
      clientId: null,
    });
    const recipient = json<FeeConfigJson>(
      await create([
        ...['--flow', 'outgoing', '--bearer', 'recipient', '--bps', '100'],
        ...['--tron-recipient', TRON, '--evm-recipient', EVM],
      ]),
    );
    expect(recipient).toMatchObject({ bps: 100, usdCap: null, tronRecipientAddress: TRON });
    created = [payer, recipient];
  });

  it('refuses bad input with the API’s message, exits 1 and writes nothing', async () => {
    const fee = (bearer: string, bps: string) => [
      ...['--orchestrator', orchestratorId, '--flow', 'incoming'],
      ...['--bearer', bearer, '--bps', bps, '--evm-recipient', EVM],
    ];
    const good = fee('recipient', '5');
    const refusals: [readonly string[], string][] = [
      [fee('recipient', '10001'), 'Validation failed: --bps must be <= 10000'],
      [fee('recipient', '1.5'), 'Validation failed: --bps must be integer'],
      [[...good, '--usd-cap', '0'], 'Validation failed: --usd-cap must be greater than 0 (USD)'],
      [[...good, '--client-id', 'cli_unknown'], 'Client ID not found'],
      [[...good, '--client-id', unlinkedClientId], 'Client ID is not linked to this orchestrator'],
      // The pair the first create took, at the default level.
      [
        fee('payer', '9'),
        `A payer-borne incoming fee config exists at this level already (${created[0]?.id}, active): change it with PATCH; disabling it does not free the pair`,
      ],
      [[...good.slice(2), '--orchestrator', 'nope'], 'no orchestrator nope'],
    ];
    for (const [flags, message] of refusals) {
      const result = await cli(['fee-config', 'create', ...flags]);
      expect(result.code, flags.join(' ')).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim()).toBe(`payreq: ${message}`);
    }
    // A recipient with a wrong checksum is the address parser's refusal, named by its flag.
    const checksum = await cli([
      ...['fee-config', 'create', ...good.slice(0, -1)],
      '0x2546bcD3c84621e976D8185a91A922aE77ECEc30',
    ]);
    expect(checksum.code).toBe(1);
    expect(checksum.stderr).toMatch(/^payreq: Validation failed: --evm-recipient /);
    // No recipient at all: a usage error, before the database.
    const none = await cli(['fee-config', 'create', ...good.slice(0, -2)]);
    expect(none.code).toBe(1);
    expect(none.stderr.trim()).toBe(
      'payreq: --evm-recipient or --tron-recipient is required (or both)',
    );

    expect(await feeConfigs()).toEqual(created);
  });

  it('disables a fee config, again with the same answer, and refuses an unknown one', async () => {
    const [payer] = created;
    const disable = (id: string) => cli(['fee-config', 'disable', '--id', id, '--json']);
    const disabled = json<FeeConfigJson>(await disable(payer?.id ?? ''));
    expect(disabled).toEqual({ ...payer, status: 'disabled', updatedAt: expect.any(String) });
    expect(json(await disable(payer?.id ?? ''))).toEqual(disabled);
    created = [disabled, ...created.slice(1)];
    expect(await feeConfigs()).toEqual(created);

    for (const id of [randomUUID(), 'nope']) {
      const unknown = await cli(['fee-config', 'disable', '--id', id]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr.trim()).toBe('payreq: Fee config not found');
    }
  });

  it('serves the new key and refuses the old one; the API lists what the CLI wrote', async () => {
    server = await startServer(env);
    const list = (key: string) =>
      fetch(`${server?.url}/v2/orchestrators/fee-configs`, {
        headers: { 'x-orchestrator-key': key },
      });
    const old = await list(oldKey);
    expect(old.status).toBe(401);
    expect(await old.json()).toMatchObject({ code: 'revoked_orchestrator_key' });
    const current = await list(newKey);
    expect(current.status).toBe(200);
    // Both are the orchestrator's defaults, which the API lists without ?clientId.
    expect(await current.json()).toEqual(created);
    expect(server.output()).not.toContain(newKey);
  });

  it('lists when the key was last used, once the server has stopped', async () => {
    expect(await server?.stop('SIGTERM')).toBe(0);
    const listed = json<{ orchestrators: { activeKeys: { lastUsedAt: string | null }[] }[] }>(
      await cli(['orchestrator', 'list', '--json']),
    );
    expect(listed.orchestrators[0]?.activeKeys[0]?.lastUsedAt).toEqual(expect.any(String));
  });
});
