import { expect } from 'vitest';

/**
 * Running a README block as written: its commands (continuations joined) with the output shown
 * under each (a `#    {…}` line), shell words split as sh does, `curl` as the request it makes,
 * and a printed output matched against the one shown (`<name>` a value, `…` anything).
 * test/e2e/sandbox.test.ts and sandbox-crosschain.test.ts run the README's walk-throughs with it.
 */

/** Commands of the walk-through block, in order, each with the output the README shows. */
interface Step {
  readonly command: string;
  readonly shows: string | null;
}

export function walkThrough(readme: string, heading = '## Walk-through'): Step[] {
  const section = readme.slice(readme.indexOf(heading));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('no sh block in the README walk-through');
  const steps: { command: string; shows: string | null }[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    const shown = /^#\s{2,}(\{.*)$/.exec(line);
    const last = steps.at(-1);
    if (shown?.[1] && last && last.shows === null && pending === '') {
      last.shows = shown[1];
      continue;
    }
    if (pending === '' && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    pending += `${line}\n`;
    if (!line.endsWith('\\')) {
      steps.push({ command: pending.replace(/\\\n/g, ' ').trim(), shows: null });
      pending = '';
    }
  }
  return steps;
}

/** Shell words, as sh splits them: quotes group, nothing is expanded (none is used). */
export function words(command: string): string[] {
  const out: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] ?? '';
    if (c === "'" || c === '"') {
      const end = command.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unclosed quote in ${command}`);
      const quoted = command.slice(i + 1, end);
      if (c === '"' && /[$`\\]/.test(quoted)) throw new Error(`expansion in ${command}`);
      word = (word ?? '') + quoted;
      i = end;
    } else if (/\s/.test(c)) {
      if (word !== null) out.push(word);
      word = null;
    } else {
      // `<name>` is the README's placeholder for a value, which the reader types in its place.
      const placeholder = /^<[A-Za-z]+>/.exec(command.slice(i))?.[0];
      if (placeholder) {
        word = (word ?? '') + placeholder;
        i += placeholder.length - 1;
        continue;
      }
      if (/[$`;&|<>()*?]/.test(c)) throw new Error(`shell syntax "${c}" in ${command}`);
      word = (word ?? '') + c;
    }
  }
  if (word !== null) out.push(word);
  return out;
}

/** What `curl -s [-X method] [-H header]... [-d body] <url>` sends, sent with fetch. */
export async function curl(args: readonly string[]): Promise<{ status: number; body: string }> {
  let method: string | undefined;
  let body: string | undefined;
  let url: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const next = () => {
      i += 1;
      const value = args[i];
      if (value === undefined) throw new Error(`curl ${arg} needs a value`);
      return value;
    };
    if (arg === '-s') continue;
    if (arg === '-X') method = next();
    else if (arg === '-H') {
      const [name, ...value] = next().split(':');
      headers[(name ?? '').trim().toLowerCase()] = value.join(':').trim();
    } else if (arg === '-d') body = next();
    else if (arg?.startsWith('-')) throw new Error(`curl option ${arg} is not understood here`);
    else url = arg;
  }
  if (!url) throw new Error('curl without a URL');
  const response = await fetch(url, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    headers:
      body !== undefined && !headers['content-type']
        ? { ...headers, 'content-type': 'application/x-www-form-urlencoded' }
        : headers,
    ...(body !== undefined && { body }),
  });
  return { status: response.status, body: await response.text() };
}

/**
 * The README's shown output as a pattern: `<name>` captures a value (or must equal the one
 * already known), `…` stands for anything within the line.
 */
export function shownPattern(
  shown: string,
  known: ReadonlyMap<string, string>,
): { pattern: RegExp; groups: string[] } {
  const groups: string[] = [];
  const pattern = shown
    .split(/(<[A-Za-z]+>|…)/)
    .map((part) => {
      if (part === '…') return '.*?';
      const name = /^<([A-Za-z]+)>$/.exec(part)?.[1];
      if (!name) return part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      const value = known.get(part);
      if (value !== undefined) return value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      if (groups.includes(name)) return `\\k<${name}>`;
      groups.push(name);
      return `(?<${name}>[^"]*)`;
    })
    .join('');
  return { pattern: new RegExp(`^${pattern}$`), groups };
}

/** Matches a printed output against the README's. Returns the values it captured. */
export function matchShown(
  shown: string,
  printed: string,
  known: ReadonlyMap<string, string>,
): Map<string, string> {
  const { pattern, groups } = shownPattern(shown, known);
  const match = pattern.exec(printed.trim());
  expect(match, `README shows ${shown}\nbut it printed ${printed}`).not.toBeNull();
  return new Map(groups.map((name) => [`<${name}>`, match?.groups?.[name] ?? '']));
}

/** A TypeScript block of a README section, with the outputs it shows, in order. */
interface Program {
  readonly code: string;
  /** Each `// prints {…}` line: what the `console.log` above it prints. */
  readonly shows: string[];
}

/**
 * The `ts` blocks of the README section under `heading` (up to the next heading of its level),
 * joined in order into the one program the section says they make.
 */
export function typescriptProgram(readme: string, heading: string): Program {
  const start = readme.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const level = /^#+/.exec(heading)?.[0] ?? '##';
  const rest = readme.slice(start + heading.length);
  const end = rest.search(new RegExp(`\\n${level} `));
  const section = end < 0 ? rest : rest.slice(0, end);
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  if (blocks.length === 0) throw new Error(`no ts block under ${heading}`);
  const code = blocks.join('\n');
  const shows = [...code.matchAll(/^\s*\/\/ prints (.*)$/gm)].map((match) => match[1] ?? '');
  return { code, shows };
}
