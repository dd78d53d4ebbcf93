import type { ReadStream } from 'node:fs';
import {
  createWrtfleetClient,
  streamError,
  streamEvents,
  WrtfleetError,
  type ResponseOf,
  type WrtfleetClient,
} from '@wrtfleet/client';

/**
 * The CLI is a client of the REST API like any other: its requests, errors and types are
 * @wrtfleet/client's (types generated from the controller's own schemas, npm run web:api), so a
 * change to a route that breaks it fails the typecheck.
 */
export type { ResponseOf };

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
export type Alert = ResponseOf<'/v1/alerts/{id}', 'get'>;
export type AlertPage = ResponseOf<'/v1/alerts', 'get'>;
export type AlertRuleList = ResponseOf<'/v1/alert-rules', 'get'>;
export type Silence = ResponseOf<'/v1/silences', 'post', 201>;
export type SilenceList = ResponseOf<'/v1/silences', 'get'>;
export type ChannelList = ResponseOf<'/v1/channels', 'get'>;
export type CreatedChannel = ResponseOf<'/v1/channels', 'post', 201>;
export type ChannelTestResult = ResponseOf<'/v1/channels/{name}/test', 'post'>;
/** A listing the CLI only prints as a table. */
export type Rows = { items: Record<string, unknown>[] };
/** The data of a job's `progress` and `end` server-sent events (server/routes/v1/jobs/index.ts). */
export type JobProgress = { state: string; step: string | null; percent: number; message: string | null };
export type JobEnd = { state: string; message: string | null; error: string | null };

/**
 * A failed API call: the controller's JSON error, a stream that ended in one, or a transport
 * failure (status 0). The package's error under the name the CLI's commands use.
 */
export { WrtfleetError as ApiCallError };

/**
 * The REST API as the CLI uses it: untyped paths the commands build as strings, JSON in and out,
 * errors as ApiCallError. Each request goes through @wrtfleet/client (`typed` for the typed calls).
 */
export class ApiClient {
  /** The package's client: openapi-fetch typed by the API's paths, with the same token. */
  readonly typed: WrtfleetClient;

  constructor(
    readonly baseUrl: string,
    token: string | undefined,
  ) {
    this.typed = createWrtfleetClient({ baseUrl, token });
  }

  async raw(method: string, path: string, body?: unknown): Promise<Response> {
    return this.typed.raw(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /**
   * Sends a file as the raw body, streamed from disk (an image of tens of megabytes is never
   * whole in memory). Content-Length is set so the controller can refuse one too large before
   * reading it.
   */
  upload(path: string, file: { stream: ReadStream; sizeBytes: number }): Promise<Response> {
    return this.typed.raw(path, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(file.sizeBytes) },
      // fetch streams an async iterable body when told it is half-duplex (Node's undici).
      body: file.stream as unknown as BodyInit,
      duplex: 'half',
    } as RequestInit);
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

  /**
   * Follows a server-sent-events stream, yielding each frame's event name and parsed data (shaped
   * by the event); one that ends with `event: error` throws it as an ApiCallError.
   */
  async *events(path: string): AsyncGenerator<{ event: string; data: unknown }> {
    for await (const { event, data } of streamEvents(this.typed, path)) yield { event, data };
  }
}
