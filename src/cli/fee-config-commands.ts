import { eq } from 'drizzle-orm';
import { systemClock } from '../base/clock.ts';
import { isUuid } from '../base/ids.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { orchestrators } from '../db/schema.ts';
import { feeConfigOwner } from '../fees/fee-config-owner.ts';
import {
  createFeeConfig,
  disableFeeConfig,
  type FeeConfigAnswer,
  feeConfigAnswer,
  feeConfigsOf,
  listFeeConfigs,
} from '../fees/fee-configs.ts';
import { given, UsageError, type Values } from './flags.ts';
import type { CommandName } from './invocation.ts';
import { type Output, print } from './output.ts';

/**
 * An orchestrator's fee configs, for an operator without an HTTP client. Each command acts as
 * that orchestrator would through `/v2/orchestrators/fee-configs`: the body is checked by the
 * route's own schema and validator, then the route's service function checks and writes it,
 * so a refusal is the API's (its message, nothing written). What differs: the operator may name
 * any orchestrator, and `list` without `--client-id` shows every level, not the defaults only.
 */

type FeeConfigCommand = Extract<CommandName, `fee-config ${string}`>;

export async function runFeeConfigCommand(
  command: FeeConfigCommand,
  values: Values,
  db: DatabaseHandle['db'],
  out: Output,
): Promise<void> {
  switch (command) {
    case 'fee-config list': {
      const orchestratorId = await existingOrchestrator(db, given(values.orchestrator));
      const clientId = values['client-id'];
      const configs = (
        clientId === undefined
          ? await feeConfigsOf(db, orchestratorId)
          : await listFeeConfigs(db, orchestratorId, clientId)
      ).map(feeConfigAnswer);
      print(
        values,
        out,
        { feeConfigs: configs },
        configs.length === 0 ? 'No fee configs.' : configs.map(feeConfigLine),
      );
      return;
    }
    case 'fee-config create': {
      // The route's validator (Ajv and Fastify's compilers) only for the command that needs it.
      const [{ FEE_CONFIGS_URL, NewFeeConfigBody }, { parseBody }] = await Promise.all([
        import('../fees/schemas.ts'),
        import('../http/validation.ts'),
      ]);
      const orchestratorId = await existingOrchestrator(db, given(values.orchestrator));
      const body = parseBody(
        { method: 'POST', url: FEE_CONFIGS_URL, schema: NewFeeConfigBody },
        {
          flow: values.flow,
          feeBearer: values.bearer,
          bps: asJson(given(values.bps)),
          ...(values['usd-cap'] !== undefined && { usdCap: values['usd-cap'] }),
          ...(values['evm-recipient'] !== undefined && {
            evmRecipientAddress: values['evm-recipient'],
          }),
          ...(values['tron-recipient'] !== undefined && {
            tronRecipientAddress: values['tron-recipient'],
          }),
          ...(values['client-id'] !== undefined && { clientId: values['client-id'] }),
        },
      );
      const created = feeConfigAnswer(await createFeeConfig(db, systemClock, orchestratorId, body));
      print(values, out, created, [`Fee config created:`, feeConfigLine(created)]);
      return;
    }
    case 'fee-config disable': {
      const id = given(values.id);
      const orchestratorId = await feeConfigOwner(db, id);
      const disabled = feeConfigAnswer(
        await disableFeeConfig(db, systemClock, orchestratorId, id, undefined),
      );
      print(values, out, disabled, [
        `Fee config disabled (its flow and bearer stay taken at its level):`,
        feeConfigLine(disabled),
      ]);
      return;
    }
  }
}

/**
 * A flag's text as the API would get it in JSON: a number where the text is one, else the text
 * itself, which the schema then refuses as it refuses a string for a number.
 */
function asJson(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'number' ? parsed : text;
  } catch {
    return text;
  }
}

function feeConfigLine(config: FeeConfigAnswer): string {
  const recipients = [
    config.evmRecipientAddress && `EVM ${config.evmRecipientAddress}`,
    config.tronRecipientAddress && `Tron ${config.tronRecipientAddress}`,
  ].filter(Boolean);
  return [
    config.id,
    config.status,
    config.clientId === null ? 'default' : `client ${config.clientId}`,
    `${config.flow}, ${config.feeBearer}-borne, ${config.bps} bps${config.usdCap === null ? '' : ` capped at ${config.usdCap} USD`}`,
    `to ${recipients.join(' and ')}`,
  ].join('  ');
}

async function existingOrchestrator(db: DatabaseHandle['db'], id: string): Promise<string> {
  const [row] = isUuid(id)
    ? await db.select({ id: orchestrators.id }).from(orchestrators).where(eq(orchestrators.id, id))
    : [];
  if (!row) throw new UsageError(`no orchestrator ${id}`);
  return row.id;
}
