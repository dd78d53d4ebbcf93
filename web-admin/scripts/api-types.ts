/**
 * `npm run web:api`: writes web-admin/src/api/schema.d.ts, the console client's types, from
 * the controller's own OpenAPI document (built in-process, nothing listens).
 * `npm run web:api:check` (in `npm test`): exits 1 when the committed file is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildOpenApiDocument } from '../../server/openapi-document.js';

const target = path.resolve(import.meta.dirname, '../src/api/schema.d.ts');

const HEADER = `/**
 * The controller's REST API as TypeScript types, generated from its OpenAPI document by
 * web-admin/scripts/api-types.ts. Do not edit: run \`npm run web:api\` after changing a route's schemas.
 */

`;

async function generate(): Promise<string> {
  const document = await buildOpenApiDocument();
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0], { alphabetize: true });
  return HEADER + astToString(ast);
}

const check = process.argv.includes('--check');
const text = await generate();
if (check) {
  const current = await readFile(target, 'utf8').catch(() => '');
  if (current !== text) {
    console.error(`${path.relative(process.cwd(), target)} is stale: run npm run web:api`);
    process.exit(1);
  }
  console.log(`${path.relative(process.cwd(), target)} is up to date`);
} else {
  await writeFile(target, text);
  console.log(`wrote ${path.relative(process.cwd(), target)}`);
}
