/**
 * The run-time lists of the API's named enums, read from the controller's OpenAPI document:
 * every string enum the server titles (StringEnum(..., { title })) becomes one exported list.
 * The console's menus and the CLI's verbs take their values from here, so the server's list
 * (most of them the database's enums) is the one definition.
 */
export const API_ENUMS_FILE = 'src/api/api-enums.generated.ts';

type Node = unknown;

/** Every titled string enum in the document, by title; one title with two value lists is an error. */
/** A string enum's values: `enum` (StringEnum) or a union of string constants (Type.Union of literals). */
function stringValues(schema: { enum?: unknown; type?: unknown; anyOf?: unknown }): string[] | null {
  if (Array.isArray(schema.enum) && schema.type === 'string') return schema.enum as string[];
  if (!Array.isArray(schema.anyOf) || schema.anyOf.length === 0) return null;
  // A literal is `const`, or a one-value `enum` once the OpenAPI document is written.
  const constants = (schema.anyOf as { const?: unknown; enum?: unknown[] }[]).map((s) =>
    s.const !== undefined ? s.const : s.enum?.length === 1 ? s.enum[0] : undefined,
  );
  return constants.every((c) => typeof c === 'string') ? (constants as string[]) : null;
}

export function titledEnums(document: Node): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const visit = (node: Node): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const schema = node as { title?: unknown; enum?: unknown; type?: unknown; anyOf?: unknown };
    const values = typeof schema.title === 'string' ? stringValues(schema) : null;
    if (typeof schema.title === 'string' && values) {
      const seen = found.get(schema.title);
      if (seen && seen.join() !== values.join())
        throw new Error(`the enum ${schema.title} has two value lists: ${seen.join()} and ${values.join()}`);
      found.set(schema.title, values);
    }
    Object.values(node).forEach(visit);
  };
  visit(document);
  return new Map([...found].sort(([a], [b]) => a.localeCompare(b)));
}

export function apiEnumsCode(document: Node): string {
  const lines = [
    '/**',
    " * The API's named enums as run-time lists, generated from its OpenAPI document by",
    ' * web-admin/scripts/api-enums.ts. Do not edit: run `npm run web:api` after changing a route.',
    ' */',
    'export const API_ENUMS = {',
    ...[...titledEnums(document)].map(([title, values]) => `  ${title}: ${JSON.stringify(values)},`),
    '} as const;',
    '',
    '/** One value of a named enum: ApiEnum<"ConnectionStatus"> is "online" | "offline" | "never_seen". */',
    'export type ApiEnum<K extends keyof typeof API_ENUMS> = (typeof API_ENUMS)[K][number];',
    '',
  ];
  return lines.join('\n');
}
