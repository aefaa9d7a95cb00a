import type { Values } from './flags.ts';

/** Where a command writes its result: one line (or block) per call. */
export type Output = (line: string) => void;

/** `--json`: one JSON object on one line; otherwise the text for a person. */
export function print(
  values: Values,
  out: Output,
  json: object,
  text: string | readonly string[],
): void {
  if (values.json) out(JSON.stringify(json));
  else out(typeof text === 'string' ? text : text.join('\n'));
}
