import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ApiTokens } from './api-tokens.js';

/**
 * On the very first start (no token exists at all) the controller mints an admin token and
 * writes it to a file only its owner can read, then logs WHERE it is, never the token.
 * Several replicas starting together on an empty database each see zero tokens; the first
 * to write wins the file only if they share the data directory, so production operators
 * should create the first token once (npm run server, then read the file) before scaling.
 */
export async function bootstrapAdminToken(tokens: ApiTokens, dataDir: string, log: Logger): Promise<string | null> {
  if ((await tokens.count()) > 0) return null;
  const { secret } = await tokens.create({
    name: 'bootstrap admin',
    owner: 'admin',
    scopes: ['admin'],
    createdBy: 'system',
  });
  const file = path.resolve(dataDir, 'admin-token');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  log.warn({ file }, 'created the first admin API token; it is in this file (mode 0600), shown nowhere else');
  return file;
}
