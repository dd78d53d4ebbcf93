import type { ReadStream } from 'node:fs';
import type { paths } from '../web-admin/src/api/schema.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/**
 * The JSON body of METHOD PATH's answer with status S, from the OpenAPI types generated from the
 * controller's own schemas (npm run web:api): the CLI is a client of the REST API like any other,
 * and a change to a route that breaks it fails the typecheck.
 */
export type ResponseOf<P extends keyof paths, M extends Method, S extends number = 200> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

// The response bodies the CLI reads.
export type AuditVerdict = ResponseOf<'/v1/audit/verify', 'get'>;
export type CommandView = ResponseOf<'/v1/commands/{id}', 'get'>;
export type RolloutView = ResponseOf<'/v1/rollouts/{id}', 'get'>;
export type SaveResult = ResponseOf<'/v1/profiles/{name}', 'put'>;
export type ReenrollToken = ResponseOf<'/v1/routers/{id}/re-enroll', 'post', 201>;
export type CommandTargetPage = ResponseOf<'/v1/commands/{id}/targets', 'get'>;
export type RouterPage = ResponseOf<'/v1/routers', 'get'>;
export type RouterPlanPreview = ResponseOf<'/v1/routers/{id}/plan', 'get'>;
export type FleetPlanPreview = ResponseOf<'/v1/plan-preview', 'post'>;
export type FirmwareImage = ResponseOf<'/v1/firmware/images/{sha256}', 'get'>;
export type FirmwareImageList = ResponseOf<'/v1/firmware/images', 'get'>;
export type RolloutTargetPage = ResponseOf<'/v1/rollouts/{id}/targets', 'get'>;
/** A listing the CLI only prints as a table. */
export type Rows = { items: Record<string, unknown>[] };
/** The data of a job's `progress` and `end` server-sent events (server/routes/v1/jobs/index.ts). */
export type JobProgress = { state: string; step: string | null; percent: number; message: string | null };
export type JobEnd = { state: string; message: string | null; error: string | null };

/** A failed API call: the controller's JSON error, or a transport failure. */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: { path: string; message: string }[],
  ) {
    super(message);
  }
}

/** The error a stream ended with (server/http/streamed-response.ts), as a failed call. */
function streamError(body: { error?: string; message?: string; requestId?: string }) {
  const id = body.requestId ? ` (request ${body.requestId})` : '';
  return new ApiCallError(200, body.error ?? 'stream_error', `${body.message ?? 'the stream ended in an error'}${id}`);
}

/** The REST API as the CLI uses it: bearer token, JSON in and out, errors as ApiCallError. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {}

  private headers(json: boolean): Record<string, string> {
    return {
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      ...(json ? { 'content-type': 'application/json' } : {}),
    };
  }

  async raw(method: string, path: string, body?: unknown): Promise<Response> {
    return this.request(method, path, {
      headers: this.headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /**
   * Sends a file as the raw body, streamed from disk (an image of tens of megabytes is never
   * whole in memory). Content-Length is set so the controller can refuse one too large before
   * reading it.
   */
  upload(path: string, file: { stream: ReadStream; sizeBytes: number }): Promise<Response> {
    return this.request('POST', path, {
      headers: {
        ...this.headers(false),
        'content-type': 'application/octet-stream',
        'content-length': String(file.sizeBytes),
      },
      // fetch streams an async iterable body when told it is half-duplex (Node's undici).
      body: file.stream as unknown as BodyInit,
      duplex: 'half',
    } as RequestInit);
  }

  /** One call: a transport failure or a non-2xx answer becomes an ApiCallError. */
  private async request(method: string, path: string, init: RequestInit): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, { method, ...init });
    } catch (err) {
      throw new ApiCallError(
        0,
        'unreachable',
        `cannot reach the controller at ${this.baseUrl} (${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message})`,
      );
    }
    if (!res.ok) {
      const text = await res.text();
      let parsed: { error?: string; message?: string; details?: { path: string; message: string }[] } = {};
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      throw new ApiCallError(
        res.status,
        parsed.error ?? 'http_error',
        parsed.message ?? `HTTP ${res.status}`,
        parsed.details,
      );
    }
    return res;
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, path, body);
    return (await res.json()) as T;
  }

  get<T>(path: string) {
    return this.call<T>('GET', path);
  }

  /** The whole text of a JSON-lines export; one that ended with an error line is an ApiCallError. */
  async lines(path: string): Promise<string> {
    const text = await (await this.raw('GET', path)).text();
    const last = text.trimEnd().split('\n').at(-1);
    const marker = last?.startsWith('{"error":') ? (JSON.parse(last) as { error: string; message?: string }) : null;
    if (marker) throw streamError(marker);
    return text;
  }

  /** Follows a server-sent-events stream, yielding each frame's event name and parsed data (shaped by the event). */
  async *events(path: string): AsyncGenerator<{ event: string | undefined; data: unknown }> {
    const res = await this.raw('GET', path);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = /^data: (.+)$/m.exec(frame)?.[1];
        // Comment frames (keepalives) carry no data.
        if (!data) continue;
        const event = /^event: (.+)$/m.exec(frame)?.[1];
        // The controller ends a stream that failed midway (or ran out of time) with an error event.
        if (event === 'error') throw streamError(JSON.parse(data));
        yield { event, data: JSON.parse(data) };
      }
    }
  }
}
