import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { INTENT_API_VERSION, type IntentKind } from './intent-documents.js';
import { KIND_ORDER } from './intent-plan.js';
import { readLiveIntent } from './live-intent.js';

export interface ExportedDocument {
  apiVersion: typeof INTENT_API_VERSION;
  kind: IntentKind;
  metadata: { name: string };
  spec: Record<string, unknown>;
}

/**
 * Today's fleet intent as documents, managed from files or not: what `wrtfleet export` writes so
 * an installation run from the console can move to files. Applying them changes nothing but
 * the marks (every resource becomes managed from files).
 */
export async function exportIntent(db: PrismaClient): Promise<ExportedDocument[]> {
  const live = [...(await readLiveIntent(db)).values()];
  live.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return live.map((r) => ({ apiVersion: INTENT_API_VERSION, kind: r.kind, metadata: { name: r.name }, spec: r.spec }));
}
