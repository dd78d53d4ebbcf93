/**
 * The paths the controller answers as an API (JSON, tokens, never cached) rather than as the
 * console's pages: any other GET that accepts HTML is the console's single-page app.
 */
const API_ROOTS = ['/v1', '/docs', '/metrics', '/healthz', '/readyz', '/admin'];

export function isApiPath(path: string): boolean {
  return API_ROOTS.some((root) => path === root || path.startsWith(`${root}/`));
}

/** The path of a request URL, without its query string. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
