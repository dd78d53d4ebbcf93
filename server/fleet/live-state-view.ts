/**
 * A router's live state as the API shows it (`GET /v1/routers/{id}`, `liveState`): the Hello's
 * account, kept current by what came later. The datapath follows each apply result (the
 * registry writes it); the offload state is in every telemetry sample, so the newest sample
 * taken on the current stream says it, not the Hello from before the router's last apply.
 */

interface TelemetryLatest {
  at: Date;
  latest: unknown;
}

export function liveStateView(
  stored: object | null,
  telemetry: TelemetryLatest | null,
  connectedAt: Date | null,
): Record<string, unknown> | null {
  if (!stored && !telemetry) return null;
  const view: Record<string, unknown> = { ...stored };
  if (!telemetry) return view;
  view.telemetry = telemetry.latest;
  const offload = (telemetry.latest as { offload?: unknown } | null)?.offload;
  const current = !connectedAt || telemetry.at.getTime() >= connectedAt.getTime();
  if (current && offload && typeof offload === 'object') view.offload = offload;
  return view;
}
