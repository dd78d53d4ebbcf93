import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isApiPath, pathOf } from '../http/api-paths.js';

export interface ConsolePluginOptions {
  /** The console's production build (web-admin/dist). */
  distDir: string;
  /** Whether a build is under way (the controller started one because none was current). */
  building?: () => boolean;
}

/** Hashed asset names change with their content: browsers may keep them a year. */
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

/** Files at the build's top level other than index.html (favicon.svg): fixed names, so revalidated. */
const TOP_LEVEL_FILE = /^\/([A-Za-z0-9][A-Za-z0-9_-]*\.(svg|ico|png|txt|webmanifest))$/;
const TOP_LEVEL_TYPES: Record<string, string> = {
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  png: 'image/png',
  txt: 'text/plain; charset=utf-8',
  webmanifest: 'application/manifest+json',
};

const NOT_BUILT_PAGE = (building: boolean) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>wrtfleet</title></head>
<body><h1>wrtfleet</h1><p>${
  building
    ? 'The console is being built; reload this page in a few seconds.'
    : 'The console is not built: run <code>npm run web:build</code>. The REST API (<a href="/docs">/docs</a>) works without it.'
}</p></body></html>
`;

const acceptsHtml = (request: FastifyRequest) => (request.headers.accept ?? '').includes('text/html');

/** The hashed assets under /assets/ (scripts, styles), compressed ahead of time by the build. */
export async function consolePlugin(app: FastifyInstance, { distDir }: ConsolePluginOptions) {
  await app.register(fastifyStatic, {
    root: distDir,
    serve: false,
    preCompressed: true,
    dotfiles: 'deny',
    index: false,
    suppressWarning: true,
  });
  app.get(
    '/assets/*',
    { config: { console: true }, schema: { hide: true } },
    async (request: FastifyRequest<{ Params: { '*': string } }>, reply) =>
      reply.sendFile(`assets/${request.params['*']}`, distDir, { maxAge: ASSET_MAX_AGE_MS, immutable: true }),
  );
}

/** A GET or HEAD that no route matched and that the console may answer (not under an API path). */
export function mayBeConsolePage(request: FastifyRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && !isApiPath(pathOf(request.url));
}

/**
 * The console's pages: index.html for every GET that no route matched, asks for a page and is
 * not under an API path, so a client-side route (/fleet, /routers/<id>) opened directly or
 * reloaded shows the console; and the few fixed files beside it (favicon.svg). The not-found
 * handler asks it first (server/http/errors.ts); null means "not a page, answer 404".
 */
export function consolePages({ distDir, building = () => false }: ConsolePluginOptions) {
  // Resolves true once it has sent: a FastifyReply is itself a thenable (resolving to undefined
  // when the response ends), so returning the reply would read as "not handled" to the caller.
  return async (request: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    if (!mayBeConsolePage(request)) return false;
    const file = TOP_LEVEL_FILE.exec(pathOf(request.url));
    if (file) {
      const content = await readFile(path.join(distDir, file[1]!)).catch(() => null);
      if (!content) return false;
      reply.header('cache-control', 'no-cache').type(TOP_LEVEL_TYPES[file[2]!]!).send(content);
      return true;
    }
    if (!acceptsHtml(request)) return false;
    const index = path.join(distDir, 'index.html');
    const html = existsSync(index) ? await readFile(index).catch(() => null) : null;
    if (!html) {
      reply
        .status(503)
        .header('retry-after', '5')
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(NOT_BUILT_PAGE(building()));
      return true;
    }
    reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html);
    return true;
  };
}
