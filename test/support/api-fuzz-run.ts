import fc from 'fast-check';
import { operationsOf, requestOf, urlOf, type GeneratedRequest } from './openapi-requests.js';

/**
 * Sends requests derived from the controller's OpenAPI document (valid and mutated) with an
 * admin token and holds every answer to the API's contract: no 5xx, an answer within 5 s, and
 * every 4xx a JSON body of the documented error shape (server/http/errors.ts).
 */

export interface FuzzOutcome {
  sent: number;
  operations: number;
  byClass: Record<string, number>;
  byStatus: Record<string, number>;
  routesHit: number;
  /** 4xx answers with fields beyond the documented ones (Fastify's own errors carry code, statusCode). */
  extraFields: Record<string, number>;
  failure?: string;
}

const ERROR_KEYS = new Set(['error', 'message', 'details', 'requestId']);

/** Why an answer breaks the contract, or undefined when it keeps it. */
function contractBreach(status: number, contentType: string, text: string): string | undefined {
  if (status >= 500) return `status ${status}`;
  if (status < 400) return undefined;
  if (!/application\/json/.test(contentType)) return `a ${status} of content type ${contentType}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `a ${status} whose body is not JSON`;
  }
  const b = body as Record<string, unknown>;
  if (typeof b.error !== 'string' || typeof b.message !== 'string') return `a ${status} without error and message`;
  if (b.details !== undefined) {
    const ok =
      Array.isArray(b.details) &&
      b.details.every(
        (d: { path?: unknown; message?: unknown }) => typeof d.path === 'string' && typeof d.message === 'string',
      );
    if (!ok) return `a ${status} whose details are not [{ path, message }]`;
  }
  return undefined;
}

function countExtraFields(text: string, into: Record<string, number>) {
  try {
    for (const key of Object.keys(JSON.parse(text) as object))
      if (!ERROR_KEYS.has(key)) into[key] = (into[key] ?? 0) + 1;
  } catch {
    /* contractBreach reports it */
  }
}

async function send(baseUrl: string, token: string, req: GeneratedRequest) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  const withBody = req.body && req.op.method !== 'GET';
  if (withBody) headers['content-type'] = req.body!.contentType;
  const res = await fetch(`${baseUrl}${urlOf(req)}`, {
    method: req.op.method,
    headers,
    body: withBody ? req.body!.text : undefined,
    signal: AbortSignal.timeout(5_000),
  });
  const contentType = res.headers.get('content-type') ?? '';
  // Streams (server-sent events, NDJSON export) stay open by design: their headers are the answer.
  const streaming = res.ok && /event-stream|ndjson/.test(contentType);
  const text = streaming ? (await res.body?.cancel(), '') : await res.text();
  return { status: res.status, contentType, text };
}

export async function fuzzApi(options: {
  baseUrl: string;
  token: string;
  runs: number;
  seed?: number;
  /** Values that name real resources, by parameter or field name (router ids, profile names). */
  known?: Record<string, unknown[]>;
}): Promise<FuzzOutcome> {
  const doc = (await (await fetch(`${options.baseUrl}/docs/json`)).json()) as Parameters<typeof operationsOf>[0];
  const ops = operationsOf(doc);
  const byStatus = new Map<number, number>();
  const routes = new Set<string>();
  const extraFields: Record<string, number> = {};
  let sent = 0;
  // The operations in turn, each request for one random: a random pick of the operation missed
  // some of them once there were 55 (250 runs), and the test demands every one is hit.
  let turn = 0;
  const result = await fc.check(
    fc.asyncProperty(
      fc.constant(null).chain(() => requestOf(ops[turn++ % ops.length]!, options.known ?? {})),
      async (req) => {
        sent += 1;
        routes.add(`${req.op.method} ${req.op.path}`);
        const { status, contentType, text } = await send(options.baseUrl, options.token, req);
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
        if (status >= 400 && status < 500) countExtraFields(text, extraFields);
        const breach = contractBreach(status, contentType, text);
        if (breach)
          throw new Error(
            `${req.op.method} ${urlOf(req).slice(0, 200)} (${req.mutation}; body ${req.body?.text.slice(0, 200) ?? 'none'}) -> ${breach}: ${text.slice(0, 300)}`,
          );
      },
    ),
    { numRuns: options.runs, seed: options.seed ?? 20261201, endOnFailure: true },
  );
  const byClass: Record<string, number> = {};
  for (const [status, n] of byStatus)
    byClass[`${Math.floor(status / 100)}xx`] = (byClass[`${Math.floor(status / 100)}xx`] ?? 0) + n;
  return {
    sent,
    operations: ops.length,
    byClass,
    byStatus: Object.fromEntries(byStatus),
    routesHit: routes.size,
    extraFields,
    // Counterexamples can hold strings of hundreds of kilobytes: the message alone, shortened.
    failure: result.failed
      ? String((result.errorInstance as Error | undefined)?.message ?? result.errorInstance).slice(0, 800)
      : undefined,
  };
}
