/**
 * Matching a URL path against the console's route patterns ("/routers/:id"). Pure, so the
 * router's rules are unit-tested without a browser.
 */

export type RouteParams = Record<string, string>;

/** The params a pattern binds in `pathname`, or null when it does not match. Trailing slashes are ignored. */
export function matchPattern(pattern: string, pathname: string): RouteParams | null {
  const want = segments(pattern);
  const have = segments(pathname);
  if (want.length !== have.length) return null;
  const params: RouteParams = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const h = have[i]!;
    if (w.startsWith(':')) {
      let value: string;
      try {
        value = decodeURIComponent(h);
      } catch {
        return null;
      }
      if (value === '') return null;
      params[w.slice(1)] = value;
    } else if (w !== h) return null;
  }
  return params;
}

function segments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/** The first route whose pattern matches, with its params. */
export function matchRoute<R extends { path: string }>(
  routes: readonly R[],
  pathname: string,
): { route: R; params: RouteParams } | null {
  for (const route of routes) {
    const params = matchPattern(route.path, pathname);
    if (params) return { route, params };
  }
  return null;
}

/** A pattern filled with params, each encoded: `pathFor('/routers/:id', { id: 'a/b' })` is "/routers/a%2Fb". */
export function pathFor(pattern: string, params: RouteParams = {}): string {
  return pattern.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`pathFor(${pattern}): no value for :${name}`);
    return encodeURIComponent(value);
  });
}

/** True when a link to `target` should count as the current page's nav entry (itself or below it). */
export function isWithin(pathname: string, target: string): boolean {
  const t = target.replace(/\/$/, '');
  return pathname === t || pathname.startsWith(`${t}/`);
}
