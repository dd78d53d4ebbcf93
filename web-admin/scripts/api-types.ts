/**
 * `npm run web:api`: writes what the console takes from the controller's own OpenAPI document
 * (built in-process, nothing listens): web-admin/src/api/schema.d.ts, the console client's
 * types, the profile spec's compiled schema check (spec-validator.ts) and the run-time lists of
 * its named enums (api-enums.ts).
 * `npm run web:api:check` (in `npm test`): exits 1 when a committed file is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildOpenApiDocument } from '../../server/openapi-document.js';
import { API_ENUMS_FILE, apiEnumsCode } from './api-enums.js';
import { SPEC_VALIDATOR_FILE, specValidatorCode } from './spec-validator.js';

const webAdmin = path.resolve(import.meta.dirname, '..');

const HEADER = `/**
 * The controller's REST API as TypeScript types, generated from its OpenAPI document by
 * web-admin/scripts/api-types.ts. Do not edit: run \`npm run web:api\` after changing a route's schemas.
 */

`;

async function generate(): Promise<Map<string, string>> {
  const document = await buildOpenApiDocument();
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0], { alphabetize: true });
  return new Map([
    [path.join(webAdmin, 'src/api/schema.d.ts'), HEADER + astToString(ast)],
    [path.join(webAdmin, SPEC_VALIDATOR_FILE), specValidatorCode(document)],
    [path.join(webAdmin, API_ENUMS_FILE), apiEnumsCode(document)],
  ]);
}

const check = process.argv.includes('--check');
let stale = false;
for (const [target, text] of await generate()) {
  const name = path.relative(process.cwd(), target);
  if (check) {
    const current = await readFile(target, 'utf8').catch(() => '');
    if (current === text) console.log(`${name} is up to date`);
    else {
      console.error(`${name} is stale: run npm run web:api`);
      stale = true;
    }
  } else {
    await writeFile(target, text);
    console.log(`wrote ${name}`);
  }
}
if (stale) process.exit(1);
