import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from './errors.js';

/**
 * Checks every request's parsed body, query and path parameters before schema validation, for
 * what no route's schema can express and what would otherwise reach a recursive function or the
 * database: nesting deeper than any route takes (a 10 KB body can nest 20,000 levels and
 * overflow the stack of whatever walks it), and text PostgreSQL stores in neither text nor jsonb
 * columns (U+0000, lone UTF-16 surrogates), in values and in object keys alike.
 */

/** Deeper than any route's schema nests (a profile spec and its overrides are 4 levels). */
export const MAX_NESTING_DEPTH = 32;

// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this looks for
const UNSTORABLE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

type Part = 'body' | 'querystring' | 'params';

const pointerSegment = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function unstorableTextMessage(text: string): string {
  return text.includes('\u0000') ? 'contains U+0000' : 'contains a lone UTF-16 surrogate';
}

function refuse(part: Part, path: string, message: string): never {
  const field = path.replace(/^\//, '') || part;
  throw new ApiError(400, 'invalid_request', `invalid ${part} parameter: ${field} ${message}`, [
    { path: path || '/', in: part, message },
  ]);
}

/** Walks one part without recursion, so the check itself cannot overflow the stack. */
export function checkRequestPart(part: Part, value: unknown): void {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (pending.length > 0) {
    const { value: v, path, depth } = pending.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE_TEXT.test(v)) refuse(part, path, unstorableTextMessage(v));
      continue;
    }
    if (v === null || typeof v !== 'object' || Buffer.isBuffer(v)) continue;
    if (depth >= MAX_NESTING_DEPTH) {
      // Name the top-level field: the full pointer of a deep value is as long as the nesting.
      refuse(part, path.split('/').slice(0, 2).join('/'), `is nested deeper than ${MAX_NESTING_DEPTH} levels`);
    }
    if (Array.isArray(v)) {
      v.forEach((item, i) => pending.push({ value: item, path: `${path}/${i}`, depth: depth + 1 }));
      continue;
    }
    for (const [key, item] of Object.entries(v)) {
      const itemPath = `${path}/${pointerSegment(key)}`;
      if (UNSTORABLE_TEXT.test(key)) refuse(part, itemPath, `has a name that ${unstorableTextMessage(key)}`);
      pending.push({ value: item, path: itemPath, depth: depth + 1 });
    }
  }
}

async function requestGuardsPlugin(app: FastifyInstance) {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    checkRequestPart('params', request.params);
    checkRequestPart('querystring', request.query);
    checkRequestPart('body', request.body);
  });
}

export default fp(requestGuardsPlugin, { name: 'wrtfleet-request-guards' });
