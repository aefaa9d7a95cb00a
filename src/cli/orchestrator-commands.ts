import { systemClock } from '../base/clock.ts';
import type { DatabaseHandle } from '../db/client.ts';
import {
  createOrchestrator,
  listOrchestrators,
  type OrchestratorSummary,
  rotateOrchestratorKey,
} from '../orchestrators/orchestrators.ts';
import { given, UsageError, type Values } from './flags.ts';
import type { CommandName } from './invocation.ts';
import { type Output, print } from './output.ts';

/**
 * The operator's orchestrators: create one, list them, rotate a key. A key is printed once,
 * when it is made; listings show its stored prefix only.
 */

type OrchestratorCommand = Extract<CommandName, `orchestrator ${string}`>;

export async function runOrchestratorCommand(
  command: OrchestratorCommand,
  values: Values,
  db: DatabaseHandle['db'],
  out: Output,
): Promise<void> {
  switch (command) {
    case 'orchestrator create': {
      const created = await createOrchestrator(db, given(values.name));
      print(values, out, created, [
        `Orchestrator ${created.orchestratorId} created.`,
        `Orchestrator key (shown once, store it now): ${created.orchestratorKey}`,
      ]);
      return;
    }
    case 'orchestrator list': {
      const found = await listOrchestrators(db);
      print(
        values,
        out,
        { orchestrators: found.map(orchestratorJson) },
        found.length === 0 ? 'No orchestrators.' : found.flatMap(orchestratorLines),
      );
      return;
    }
    case 'orchestrator rotate-key': {
      const id = given(values.id);
      const rotated = await rotateOrchestratorKey(db, systemClock, id);
      if (rotated === null) throw new UsageError(`no orchestrator ${id}`);
      const { issued, revoked } = rotated;
      print(values, out, { orchestratorId: id, orchestratorKey: issued.key, revoked }, [
        `Orchestrator key (shown once, store it now): ${issued.key}`,
        `${revoked} previous key${revoked === 1 ? '' : 's'} revoked: ${revoked === 1 ? 'it stops' : 'they stop'} working now.`,
      ]);
      return;
    }
  }
}

function orchestratorJson(orchestrator: OrchestratorSummary) {
  return {
    orchestratorId: orchestrator.orchestratorId,
    name: orchestrator.name,
    accountId: orchestrator.accountId,
    createdAt: orchestrator.createdAt.toISOString(),
    activeKeys: orchestrator.activeKeys.map((key) => ({
      keyId: key.keyId,
      prefix: key.prefix,
      createdAt: key.createdAt.toISOString(),
      lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    })),
  };
}

function orchestratorLines(orchestrator: OrchestratorSummary): string[] {
  const owner = orchestrator.accountId === null ? '' : `, account ${orchestrator.accountId}`;
  return [
    `${orchestrator.orchestratorId}  ${orchestrator.name} (created ${orchestrator.createdAt.toISOString()}${owner})`,
    ...(orchestrator.activeKeys.length === 0
      ? ['  no working key (rotate-key issues one)']
      : orchestrator.activeKeys.map(
          (key) =>
            `  key ${key.prefix}…  created ${key.createdAt.toISOString()}, ${key.lastUsedAt === null ? 'never used' : `last used ${key.lastUsedAt.toISOString()}`}`,
        )),
  ];
}
