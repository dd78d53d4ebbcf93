/**
 * The profile editor's schema check, compiled by ajv (the validator the controller uses) from
 * the spec schema of the controller's OpenAPI document, the one the console reads at
 * /docs/json. Compiled here, at `npm run web:api`, not in the browser: ajv compiles a schema
 * into a function with `new Function`, which the console's Content-Security-Policy (no eval)
 * forbids, so the console ships ajv's standalone code instead.
 */
import { Ajv, type Options } from 'ajv';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import { specSchemaOf } from '../src/pages/profiles/spec-schema.js';

/** Where the compiled check is written (a .d.ts beside it types it). */
export const SPEC_VALIDATOR_FILE = 'src/pages/profiles/spec-validator.generated.js';

/**
 * The controller's options (server/http-api.ts: strict off for the OpenAPI-only keywords,
 * nothing removed) except: every problem rather than the first, the failing schema in each
 * error for the messages (schema-check.ts), and no defaults written into the checked value.
 */
export const SPEC_AJV_OPTIONS: Options = {
  strict: false,
  removeAdditional: false,
  useDefaults: false,
  allErrors: true,
  verbose: true,
};

type StandaloneCode = (ajv: Ajv, validate: ReturnType<Ajv['compile']>) => string;
// A CommonJS module: under Node its default export is the module object, the function its `default`.
const standaloneCode =
  (standaloneCodeModule as unknown as { default?: StandaloneCode }).default ??
  (standaloneCodeModule as unknown as StandaloneCode);

const HEADER = `// The profile spec's schema check, compiled by ajv from the controller's OpenAPI document by
// web-admin/scripts/spec-validator.ts. Do not edit: run \`npm run web:api\` after changing the spec's schema.
`;

export function specValidatorCode(openApiDocument: unknown): string {
  const schema = specSchemaOf(openApiDocument);
  if (!schema) throw new Error('the OpenAPI document has no profile spec schema');
  // The console would need ajv-formats' code too; the spec has no format today.
  if (JSON.stringify(schema).includes('"format"')) throw new Error('the spec schema uses "format": add ajv-formats');
  const ajv = new Ajv({ ...SPEC_AJV_OPTIONS, code: { source: true, esm: true } });
  return `${HEADER}${standaloneCode(ajv, ajv.compile(schema))}\n`;
}
