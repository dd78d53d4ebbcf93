/**
 * `npm run web:api`: writes what the clients take from the controller's own OpenAPI document
 * (built in-process, nothing listens): client/src/schema.d.ts, the types of @wrtfleet/client
 * (which the console and the CLI use), and for the console the profile spec's compiled schema
 * check (spec-validator.ts) and the run-time lists of its named enums (api-enums.ts); and the
 * JSON Schema of the fleet documents (docs/fleet-as-code/fleet.schema.json) for editors.
 * `npm run web:api:check` (in `npm test`): exits 1 when a committed file is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildOpenApiDocument } from '../../server/openapi-document.js';
import { intentJsonSchema } from '../../server/intent/intent-documents.js';
import { API_ENUMS_FILE, apiEnumsCode } from './api-enums.js';
import { SPEC_VALIDATOR_FILE, specValidatorCode } from './spec-validator.js';

const webAdmin = path.resolve(import.meta.dirname, '..');
const clientPackage = path.resolve(webAdmin, '../client');

const HEADER = `/**
 * The controller's REST API as TypeScript types, generated from its OpenAPI document by
 * web-admin/scripts/api-types.ts. Do not edit: run \`npm run web:api\` after changing a route's schemas.
 */

`;

async function generate(): Promise<Map<string, string>> {
  const document = await buildOpenApiDocument();
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0], { alphabetize: true });
  return new Map([
    [path.join(clientPackage, 'src/schema.d.ts'), HEADER + astToString(ast)],
    [path.join(webAdmin, SPEC_VALIDATOR_FILE), specValidatorCode(document)],
    [path.join(webAdmin, API_ENUMS_FILE), apiEnumsCode(document)],
    // The fleet documents' JSON Schema, from the same TypeBox schemas as the API's, for editors.
    [
      path.resolve(webAdmin, '../docs/fleet-as-code/fleet.schema.json'),
      `${JSON.stringify(intentJsonSchema(), null, 2)}\n`,
    ],
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
