import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { openApiDocument } from '../../../scripts/openapi-document.ts';

/**
 * `src/schema.ts`: the paths and schemas of payreq's OpenAPI document as TypeScript types, by
 * openapi-typescript. Run `npm run generate -w @payreq/client` after a change to a route's
 * schema and commit the result; test/schema-drift.test.ts fails until then.
 */
export const SCHEMA_FILE = fileURLToPath(new URL('../src/schema.ts', import.meta.url));

export async function generatedSchema(document: Record<string, unknown>): Promise<string> {
  // openapi-typescript reads the document as it is; the cast only names its type.
  const nodes = await openapiTS(document as unknown as OpenAPI3, {
    silent: true,
    alphabetize: true,
  });
  return `${COMMENT_HEADER}${astToString(nodes)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMA_FILE, await generatedSchema(await openApiDocument()));
}
