import { boundedField, type FieldError } from '../base/errors.ts';

/** One failure of a schema check, as Ajv reports it. */
export interface SchemaIssue {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: Record<string, unknown>;
  readonly message?: string | undefined;
}

/**
 * The field error a schema failure answers with (the 400 `Validation failed` envelope's
 * `errors`, and the CLI's refusal of the same input): `/requests/0/amount` →
 * `requests[0].amount`; headers keep their lower-case name.
 */
function schemaFieldError(issue: SchemaIssue, context: string | undefined): FieldError {
  const segments = issue.instancePath.split('/').filter((s) => s !== '');
  const extra = issue.params.missingProperty ?? issue.params.additionalProperty;
  if (typeof extra === 'string') segments.push(extra);
  const joined = segments.reduce(
    (path, segment) =>
      /^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment,
    '',
  );
  // Field names come from the caller (an unknown property's name): echo a bounded part.
  const field = boundedField(joined);
  let message = issue.message ?? 'is invalid';
  if (issue.keyword === 'additionalProperties') message = 'is not allowed';
  if (issue.keyword === 'required') message = 'is required';
  return { field: field || (context ?? 'body'), message };
}

/**
 * The field errors of all a check's failures. A value that must be one of several constants
 * (a union of literals: Ajv reports each `const` it missed, then the `anyOf`) answers one
 * error naming them all, rather than one per alternative.
 */
export function schemaFieldErrors(
  issues: readonly SchemaIssue[],
  context: string | undefined,
): FieldError[] {
  const byPath = new Map<string, SchemaIssue[]>();
  for (const issue of issues) {
    byPath.set(issue.instancePath, [...(byPath.get(issue.instancePath) ?? []), issue]);
  }
  return issues.flatMap((issue) => {
    const atPath = byPath.get(issue.instancePath) ?? [];
    const choices = atPath.filter((each) => each.keyword === 'const');
    const onlyChoices =
      choices.length > 0 &&
      atPath.every((each) => each.keyword === 'const' || each.keyword === 'anyOf');
    if (!onlyChoices) return [schemaFieldError(issue, context)];
    // One error for the path, in place of its first issue.
    if (issue !== atPath[0]) return [];
    const values = choices.map((each) => JSON.stringify(each.params.allowedValue));
    return [
      schemaFieldError({ ...issue, message: `must be one of ${values.join(', ')}` }, context),
    ];
  });
}
