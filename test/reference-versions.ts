import { readFileSync } from 'node:fs';

/**
 * The reference API's descriptions we hold (`test/reference/`, the real OpenAPI documents with
 * their prose removed) and which of them rules each operation. Today's reference is Request
 * API 0.31.0 with Auth API 0.14.0 (the host that took over accounts, client IDs, webhooks and
 * payee destinations); clients written against Request API 0.13.0 keep working, so 0.13.0
 * still rules the operations 0.31.0 removed and the places where 0.31.0's own description is
 * unsound (RULES, each with its reason; api-0.31-changes.md §2 and §6 name them).
 */

export type Version = '0.31.0' | 'auth-0.14.0' | '0.13.0';

export type Schema = Record<string, unknown>;

interface OperationDescription {
  readonly responses?: Record<string, Schema>;
  readonly parameters?: readonly {
    readonly name: string;
    readonly in: string;
    readonly required?: boolean;
    readonly schema?: Schema;
  }[];
  readonly requestBody?: { readonly content: Record<string, { readonly schema?: Schema }> };
}

interface ReferenceDocument {
  readonly paths: Record<string, Record<string, OperationDescription>>;
}

/** In order of preference: an operation is ruled by the first that defines it, unless RULES says otherwise. */
const FILES: Readonly<Record<Version, string>> = {
  '0.31.0': 'request-api-0.31.0.structure.json',
  'auth-0.14.0': 'auth-api-0.14.0.structure.json',
  '0.13.0': 'request-api-0.13.0.structure.json',
};

const VERSIONS = Object.keys(FILES) as readonly Version[];

/** Where 0.13.0 rules instead of the newer description, and for what. */
interface Rule {
  readonly version: '0.13.0';
  /** `answers`: the response schemas; `request`: the body and parameters clients send. */
  readonly parts: readonly ('answers' | 'request')[];
  /** Only answers this picks (all when absent). */
  readonly applies?: (body: unknown) => boolean;
  readonly reason: string;
}

const field = (body: unknown, name: string): unknown =>
  body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;

const REMOVED = (where: string): Rule => ({
  version: '0.13.0',
  parts: ['answers', 'request'],
  reason: `0.31.0 removed it (${where}); clients of 0.13.0 still call it`,
});

/**
 * Keyed by the operation as `METHOD path` in the path form of the version it names. Every
 * operation only 0.13.0 defines must be here (reading the table throws if one is forgotten), so
 * that which version rules what is always written down.
 */
const RULES: Readonly<Record<string, readonly Rule[]>> = {
  'GET /v2/payee-destination/signing-data': [
    REMOVED('moved to the Auth API as /v1/payee-destination'),
  ],
  'POST /v2/payee-destination': [REMOVED('moved to the Auth API as /v1/payee-destination')],
  'GET /v2/payee-destination': [REMOVED('moved to the Auth API as /v1/payee-destination')],
  'GET /v2/payee-destination/{destinationId}': [
    REMOVED('moved to the Auth API as /v1/payee-destination/lookup'),
  ],
  'DELETE /v2/payee-destination/{destinationId}': [
    REMOVED('moved to the Auth API as /v1/payee-destination/deactivate'),
  ],
  'POST /v2/request/payment-intents/{paymentIntentId}': [
    REMOVED('payment intents dropped: /pay returns the cross-chain calldata itself'),
  ],
  'GET /v2/secure-payments/{token}': [
    {
      version: '0.13.0',
      parts: ['request'],
      reason:
        '0.31.0 lost the `token` path parameter (its name collides with the source-token query parameter)',
    },
    {
      version: '0.13.0',
      parts: ['answers'],
      applies: (body) => field(body, 'paymentType') === 'multicall',
      reason:
        "0.31.0's compatibility schema knows only single and batch links; 0.13.0 describes the multicall state this answers for a multicall link",
    },
  ],
  'GET /v2/secure-payments/{token}/pay': [
    {
      version: '0.13.0',
      parts: ['request'],
      reason:
        '0.31.0 lost the `token` path parameter (its name collides with the source-token query parameter)',
    },
    {
      version: '0.13.0',
      parts: ['answers'],
      applies: (body) => field(body, 'paymentType') !== 'single',
      reason:
        "0.31.0 describes only the single variant; 0.13.0's batch and multicall branches describe the others",
    },
  ],
  'GET /v2/secure-payments/multicall-payouts/{token}': [
    {
      version: '0.13.0',
      parts: ['answers'],
      reason: '0.31.0 types the 200 as a bare fee plan; 0.13.0 has the multicall state it answers',
    },
  ],
  'POST /v2/secure-payments/{token}/refresh-step-transaction': [
    {
      version: '0.13.0',
      parts: ['request'],
      reason:
        "0.31.0 collapsed the body to `string`; 0.13.0's `{step}` object is what clients send",
    },
  ],
  'POST /v2/secure-payments/{token}/intent': [
    {
      version: '0.13.0',
      parts: ['answers'],
      applies: (body) => field(body, 'receiptId') !== undefined,
      reason:
        "0.31.0 lost the multicall receipt branch (moved to /multicall-intent); 0.13.0's describes it",
    },
  ],
};

/** `/v2/request/:requestId` and `/v2/request/{requestId}` both → `/v2/request/{}`. */
export function pathShape(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}').replace(/:[A-Za-z0-9_]+/g, '{}');
}

/**
 * Query parameters a description leaves out although its operation cannot work without them:
 * a request that sends them is still that operation's, and its answer is checked.
 */
const UNDECLARED_QUERY: Readonly<
  Record<string, { readonly names: readonly string[]; readonly reason: string }>
> = {
  'GET /v1/payee-destination/lookup': {
    names: ['destinationId'],
    reason: '0.14.0 declares no parameters, but the lookup needs the destination it looks up',
  },
  'GET /v1/payee-destination/payout-lookup': {
    names: ['walletAddress'],
    reason: '0.14.0 declares no parameters, but the lookup needs the wallet it looks up',
  },
};

let documents: Map<Version, ReferenceDocument> | undefined;

/** The three descriptions, parsed once. */
function referenceDocuments(): ReadonlyMap<Version, ReferenceDocument> {
  documents ??= new Map(
    VERSIONS.map((version) => [
      version,
      JSON.parse(
        readFileSync(new URL(`./reference/${FILES[version]}`, import.meta.url), 'utf8'),
      ) as ReferenceDocument,
    ]),
  );
  return documents;
}

/** One operation as each version that defines it describes it. */
export interface VersionedOperation {
  /** `GET /v2/request/{}`: the path with every parameter as `{}`. */
  readonly key: string;
  readonly method: string;
  readonly shape: string;
  /** By version, in order of preference, with the path as that version writes it. */
  readonly descriptions: ReadonlyMap<Version, { path: string; operation: OperationDescription }>;
  /** The version that rules by default (the first that defines it). */
  readonly primary: Version;
  readonly rules: readonly Rule[];
  /** UNDECLARED_QUERY's names for it. */
  readonly undeclaredQuery: readonly string[];
}

let union: Map<string, VersionedOperation> | undefined;

/** Every operation of 0.13.0, 0.31.0 and Auth 0.14.0, by key (`GET /v2/request/{}`). */
export function referenceUnion(): ReadonlyMap<string, VersionedOperation> {
  union ??= build();
  return union;
}

function build(): Map<string, VersionedOperation> {
  const found = new Map<
    string,
    {
      method: string;
      shape: string;
      descriptions: Map<Version, { path: string; operation: OperationDescription }>;
    }
  >();
  for (const [version, document] of referenceDocuments()) {
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const upper = method.toUpperCase();
        const shape = pathShape(path);
        const key = `${upper} ${shape}`;
        const entry = found.get(key) ?? { method: upper, shape, descriptions: new Map() };
        entry.descriptions.set(version, { path, operation });
        found.set(key, entry);
      }
    }
  }
  const named = new Map<string, string>();
  const out = new Map<string, VersionedOperation>();
  for (const [key, entry] of found) {
    const primary = VERSIONS.find((version) => entry.descriptions.has(version));
    if (!primary) throw new Error(`${key}: no version describes it`);
    const names = [...entry.descriptions.values()].map((d) => `${entry.method} ${d.path}`);
    for (const name of names) named.set(name, key);
    const rules = names.flatMap((name) => RULES[name] ?? []);
    if (primary === '0.13.0' && !rules.some((rule) => rule.parts.includes('answers')))
      throw new Error(`${key} is only in 0.13.0: RULES must say why it is still checked`);
    out.set(key, {
      key,
      method: entry.method,
      shape: entry.shape,
      descriptions: entry.descriptions,
      primary,
      rules,
      undeclaredQuery: names.flatMap((name) => UNDECLARED_QUERY[name]?.names ?? []),
    });
  }
  for (const name of [...Object.keys(RULES), ...Object.keys(UNDECLARED_QUERY)]) {
    if (!named.has(name)) throw new Error(`RULES names ${name}, which no description defines`);
  }
  return out;
}

/** The version whose description of `part` rules this answer (or request). */
export function rulingVersion(
  operation: VersionedOperation,
  part: 'answers' | 'request',
  body?: unknown,
): Version {
  const rule = operation.rules.find(
    (r) => r.parts.includes(part) && (r.applies === undefined || r.applies(body)),
  );
  return rule?.version ?? operation.primary;
}
