import { and, asc, eq, isNull, type SQL } from 'drizzle-orm';
import { findClientId } from '../auth/client-ids.ts';
import type { Clock } from '../base/clock.ts';
import { AppError, type FieldError, ValidationError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { clientIds, feeConfigs } from '../db/schema.ts';
import { isLinked } from '../orchestrators/orchestrators.ts';
import { formatAmount } from '../payments/amounts.ts';
import { parseRecipients, parseUsdCap, USD_CAP_DECIMALS } from './fee-values.ts';

/**
 * An orchestrator's fee configs (api-facts §11.3). Every rule is checked before anything is
 * written: a refused call leaves the table as it was.
 */

const FEE_TYPE = 'orchestrator_fee';
export type FeeFlow = 'incoming' | 'outgoing';
export type FeeBearer = 'payer' | 'recipient';
type FeeConfigStatus = 'active' | 'disabled';

/** A stored config as the fee plan reads it: money in base units. */
export interface FeeConfigRecord {
  readonly id: string;
  readonly orchestratorId: string;
  readonly clientIdId: string | null;
  readonly clientId: string | null;
  readonly flow: FeeFlow;
  readonly feeBearer: FeeBearer;
  readonly bps: number;
  /** USD with `USD_CAP_DECIMALS` decimals; null: no cap. */
  readonly usdCap: bigint | null;
  readonly evmRecipientAddress: string | null;
  readonly tronRecipientAddress: string | null;
  readonly status: FeeConfigStatus;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The answer of every fee-config route: the reference's example shape. */
export interface FeeConfigAnswer {
  readonly id: string;
  readonly feeType: typeof FEE_TYPE;
  readonly bps: number;
  readonly usdCap: string | null;
  readonly feeBearer: FeeBearer;
  readonly evmRecipientAddress: string | null;
  readonly tronRecipientAddress: string | null;
  readonly status: FeeConfigStatus;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly orchestratorId: string;
  readonly flow: FeeFlow;
  readonly clientIdId: string | null;
  readonly clientId: string | null;
}

export function feeConfigAnswer(config: FeeConfigRecord): FeeConfigAnswer {
  return {
    id: config.id,
    feeType: FEE_TYPE,
    bps: config.bps,
    usdCap: config.usdCap === null ? null : formatAmount(config.usdCap, USD_CAP_DECIMALS),
    feeBearer: config.feeBearer,
    evmRecipientAddress: config.evmRecipientAddress,
    tronRecipientAddress: config.tronRecipientAddress,
    status: config.status,
    createdAt: config.createdAt.toISOString(),
    updatedAt: config.updatedAt.toISOString(),
    orchestratorId: config.orchestratorId,
    flow: config.flow,
    clientIdId: config.clientIdId,
    clientId: config.clientId,
  };
}

export interface NewFeeConfig {
  readonly flow: FeeFlow;
  readonly feeBearer: FeeBearer;
  readonly bps: number;
  readonly usdCap?: string | undefined;
  readonly evmRecipientAddress?: string | undefined;
  readonly tronRecipientAddress?: string | undefined;
  readonly status?: FeeConfigStatus | undefined;
  readonly clientId?: string | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const feeConfigNotFound = () => new AppError('fee_config_not_found', 'Fee config not found');

/**
 * The client ID (row id) a config of this orchestrator may name: only one actively linked to
 * it. Unknown → 404, anyone else's or unlinked → 403, as the paired credential answers.
 */
async function linkedClientIdOf(
  db: Database,
  orchestratorId: string,
  clientIdValue: string,
): Promise<string> {
  const clientId = await findClientId(db, clientIdValue);
  if (clientId === null) throw new AppError('client_id_not_found', 'Client ID not found');
  if (!(await isLinked(db, orchestratorId, clientId.id))) {
    throw new AppError('client_id_not_linked', 'Client ID is not linked to this orchestrator');
  }
  return clientId.id;
}

async function select(db: Database, where: SQL | undefined): Promise<FeeConfigRecord[]> {
  const rows = await db
    .select({ config: feeConfigs, clientId: clientIds.clientId })
    .from(feeConfigs)
    .leftJoin(clientIds, eq(clientIds.id, feeConfigs.clientIdId))
    .where(where)
    .orderBy(asc(feeConfigs.createdAt), asc(feeConfigs.id));
  return rows.map((row) => ({ ...row.config, clientId: row.clientId }));
}

export async function createFeeConfig(
  db: Database,
  clock: Clock,
  orchestratorId: string,
  input: NewFeeConfig,
): Promise<FeeConfigRecord> {
  const errors: FieldError[] = [];
  const usdCap = parseUsdCap(input.usdCap, errors);
  const recipients = parseRecipients(
    input.evmRecipientAddress ?? null,
    input.tronRecipientAddress ?? null,
    errors,
  );
  if (errors.length > 0) throw new ValidationError(errors);
  const clientIdId =
    input.clientId === undefined
      ? null
      : await linkedClientIdOf(db, orchestratorId, input.clientId);
  const now = clock.now();
  const [inserted] = await db
    .insert(feeConfigs)
    .values({
      orchestratorId,
      clientIdId,
      flow: input.flow,
      feeBearer: input.feeBearer,
      bps: input.bps,
      usdCap: usdCap ?? null,
      ...recipients,
      status: input.status ?? 'active',
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: feeConfigs.id });
  if (!inserted) {
    const level =
      clientIdId === null ? isNull(feeConfigs.clientIdId) : eq(feeConfigs.clientIdId, clientIdId);
    const [existing] = await select(
      db,
      and(
        eq(feeConfigs.orchestratorId, orchestratorId),
        level,
        eq(feeConfigs.flow, input.flow),
        eq(feeConfigs.feeBearer, input.feeBearer),
      ),
    );
    throw new AppError(
      'fee_config_exists',
      `A ${input.feeBearer}-borne ${input.flow} fee config exists at this level already${existing ? ` (${existing.id}, ${existing.status})` : ''}: change it with PATCH; disabling it does not free the pair`,
    );
  }
  const [created] = await select(db, eq(feeConfigs.id, inserted.id));
  if (!created) throw new Error('fee config insert returned no row');
  return created;
}

/** The orchestrator's defaults, or with `clientId` the configs of that linked client ID. */
export async function listFeeConfigs(
  db: Database,
  orchestratorId: string,
  clientIdValue: string | undefined,
): Promise<FeeConfigRecord[]> {
  const level =
    clientIdValue === undefined
      ? isNull(feeConfigs.clientIdId)
      : eq(feeConfigs.clientIdId, await linkedClientIdOf(db, orchestratorId, clientIdValue));
  return select(db, and(eq(feeConfigs.orchestratorId, orchestratorId), level));
}

/** Every config of the orchestrator, both levels: what the fee-plan resolver reads. */
export async function feeConfigsOf(
  db: Database,
  orchestratorId: string,
): Promise<FeeConfigRecord[]> {
  return select(db, eq(feeConfigs.orchestratorId, orchestratorId));
}

/** The caller's config by id, or 404 (another orchestrator's included). */
async function ownConfig(
  db: Database,
  orchestratorId: string,
  id: string,
  clientIdValue: string | undefined,
): Promise<FeeConfigRecord> {
  if (!UUID.test(id)) throw feeConfigNotFound();
  const [config] = await select(
    db,
    and(eq(feeConfigs.id, id), eq(feeConfigs.orchestratorId, orchestratorId)),
  );
  if (!config) throw feeConfigNotFound();
  if (clientIdValue !== undefined && config.clientId !== clientIdValue) throw feeConfigNotFound();
  return config;
}

/** What PATCH may change; the identity fields are here only to be refused when they differ. */
export interface FeeConfigChanges {
  readonly bps?: number | undefined;
  readonly usdCap?: string | null | undefined;
  readonly evmRecipientAddress?: string | null | undefined;
  readonly tronRecipientAddress?: string | null | undefined;
  readonly status?: FeeConfigStatus | undefined;
  readonly identity: Readonly<Record<'flow' | 'feeBearer' | 'feeType' | 'clientId', unknown>>;
}

const IDENTITY_MESSAGE =
  'is part of the fee config’s identity (fee type, flow, fee bearer, level) and cannot be changed';

export async function updateFeeConfig(
  db: Database,
  clock: Clock,
  orchestratorId: string,
  id: string,
  changes: FeeConfigChanges,
): Promise<FeeConfigRecord> {
  if (!UUID.test(id)) throw feeConfigNotFound();
  // Read under a row lock: two PATCHes that each clear one recipient must not leave none.
  return db.transaction(async (tx) => {
    await tx
      .select({ id: feeConfigs.id })
      .from(feeConfigs)
      .where(and(eq(feeConfigs.id, id), eq(feeConfigs.orchestratorId, orchestratorId)))
      .for('update');
    const current = await ownConfig(tx, orchestratorId, id, undefined);
    const errors: FieldError[] = [];
    const same = { ...current, feeType: FEE_TYPE };
    for (const field of ['flow', 'feeBearer', 'feeType', 'clientId'] as const) {
      const sent = changes.identity[field];
      if (sent !== undefined && sent !== same[field]) {
        errors.push({ field, message: IDENTITY_MESSAGE });
      }
    }
    const usdCap = changes.usdCap === null ? null : parseUsdCap(changes.usdCap, errors);
    const recipients = parseRecipients(
      changes.evmRecipientAddress === undefined
        ? current.evmRecipientAddress
        : changes.evmRecipientAddress,
      changes.tronRecipientAddress === undefined
        ? current.tronRecipientAddress
        : changes.tronRecipientAddress,
      errors,
    );
    if (errors.length > 0) throw new ValidationError(errors);
    const { identity: _identity, ...changed } = changes;
    if (Object.values(changed).every((value) => value === undefined)) return current;
    await tx
      .update(feeConfigs)
      .set({
        ...(changes.bps !== undefined && { bps: changes.bps }),
        ...(usdCap !== undefined && { usdCap }),
        ...recipients,
        ...(changes.status !== undefined && { status: changes.status }),
        updatedAt: clock.now(),
      })
      .where(eq(feeConfigs.id, current.id));
    return ownConfig(tx, orchestratorId, id, undefined);
  });
}

/** Disables the config (idempotent); its flow and bearer stay taken at its level. */
export async function disableFeeConfig(
  db: Database,
  clock: Clock,
  orchestratorId: string,
  id: string,
  clientIdValue: string | undefined,
): Promise<FeeConfigRecord> {
  const current = await ownConfig(db, orchestratorId, id, clientIdValue);
  if (current.status === 'disabled') return current;
  await db
    .update(feeConfigs)
    .set({ status: 'disabled', updatedAt: clock.now() })
    .where(eq(feeConfigs.id, current.id));
  return ownConfig(db, orchestratorId, id, clientIdValue);
}
