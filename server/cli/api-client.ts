import type { Plan } from '../../core/plan.js';
import type { AuditVerdict } from '../audit/audit-verify.js';
import type { CommandJobView, CommandTargetView } from '../commands/command-view.js';
import type { PlanPreview } from '../fleet/plan-preview.js';
import type { RouterSummary } from '../fleet/router-directory.js';
import type { SaveResult } from '../profiles/profile-store.js';
import type { RolloutView } from '../rollouts/rollout-engine.js';

// The response bodies the CLI reads, named by the server types that produce them (already JSON-shaped:
// timestamps as ISO strings), so a change on the server that breaks the CLI fails the typecheck.
export type { AuditVerdict, CommandJobView, RolloutView, SaveResult };
/** POST /v1/routers/{id}/re-enroll (server/routes/v1/enrollment-tokens/index.ts). */
export type ReenrollToken = {
  id: string;
  token: string;
  identity: string;
  expiresAt: string;
  caFingerprint: string | null;
  grpcAddress: string;
};
export type CommandTargetPage = { items: CommandTargetView[]; nextCursor: string | null };
export type RouterPage = { items: RouterSummary[]; nextCursor: string | null };
export type RouterPlanPreview = NonNullable<Awaited<ReturnType<PlanPreview['forRouter']>>>;
/** POST /v1/plan-preview names a profile, so every item has a plan. */
export type FleetPlanPreview = {
  matched: number;
  items: Extract<RouterPlanPreview, { plan: Plan }>[];
  summary: Record<string, number>;
};
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
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: this.headers(body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
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
