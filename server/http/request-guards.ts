import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from './api-error.js';

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

/** Methods whose body Fastify never reads, so its body limit never applies to them. */
const UNREAD_BODY = new Set(['GET', 'HEAD', 'TRACE']);

/** Reads and drops a body up to `limit` bytes; false once it passes the limit (the rest stays unread). */
function discardUpTo(raw: IncomingMessage, limit: number): Promise<boolean> {
  // A request already torn down emits nothing more; waiting for it would never end.
  if (raw.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    let size = 0;
    const settle = (within: boolean) => {
      raw.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', onEnd);
      resolve(within);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return;
      raw.pause();
      settle(false);
    };
    // A client gone midway is not a body too large; whatever answers it goes nowhere.
    const onEnd = () => settle(true);
    raw.on('data', onData).on('end', onEnd).on('close', onEnd).on('error', onEnd);
  });
}

/**
 * A body larger than the route's limit is a 413 before authentication or routing looks at it,
 * and the connection closes rather than read the rest. Fastify bounds only the bodies it parses;
 * a GET or HEAD body it leaves unread, so an event stream would answer while a client that
 * writes its whole body first waits forever. A chunked GET or HEAD body is read up to the limit.
 */
async function refuseLargeBodies(request: FastifyRequest, reply: FastifyReply) {
  const limit = request.routeOptions.bodyLimit;
  const declared = Number(request.headers['content-length'] ?? 0);
  const chunked = request.headers['transfer-encoding'] !== undefined && UNREAD_BODY.has(request.method);
  if (declared <= limit && (!chunked || (await discardUpTo(request.raw, limit)))) return;
  reply.header('connection', 'close');
  throw new ApiError(413, 'payload_too_large', `the request body is larger than this route accepts (${limit} bytes)`);
}

async function requestGuardsPlugin(app: FastifyInstance) {
  app.addHook('onRequest', refuseLargeBodies);
  app.addHook('preValidation', async (request: FastifyRequest) => {
    checkRequestPart('params', request.params);
    checkRequestPart('querystring', request.query);
    // A raw body (a firmware image) arrives as its stream: nothing parsed to check.
    if (!(request.body instanceof Readable)) checkRequestPart('body', request.body);
  });
}

export default fp(requestGuardsPlugin, { name: 'wrtfleet-request-guards' });
