import type { JsonSchema } from './schema-check.js';

/** Where the controller publishes its OpenAPI document (public, like the API's own description). */
const OPENAPI_DOCUMENT = '/docs/json';

interface OpenApiDocument {
  paths?: Record<
    string,
    { put?: { requestBody?: { content?: Record<string, { schema?: { properties?: { spec?: JsonSchema } } }> } } }
  >;
}

/**
 * The profile spec's JSON Schema as the controller publishes it: the `spec` property of the
 * body of PUT /v1/profiles/{name}. The editor validates against it as the operator types.
 */
export function specSchemaOf(document: unknown): JsonSchema | null {
  const doc = document as OpenApiDocument;
  return (
    doc.paths?.['/v1/profiles/{name}']?.put?.requestBody?.content?.['application/json']?.schema?.properties?.spec ??
    null
  );
}

export async function loadSpecSchema(): Promise<JsonSchema> {
  const response = await fetch(OPENAPI_DOCUMENT, {
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`the controller's OpenAPI document answered HTTP ${response.status}`);
  const schema = specSchemaOf(await response.json());
  if (!schema) throw new Error("the controller's OpenAPI document has no profile spec schema");
  return schema;
}
