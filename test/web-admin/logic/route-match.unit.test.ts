import { describe, expect, it } from 'vitest';
import { isWithin, matchPattern, matchRoute, pathFor } from '../../../web-admin/src/app/route-match.js';

describe("the console's route matching", () => {
  it('binds :params, decoded, and ignores trailing slashes', () => {
    expect(matchPattern('/routers/:id', '/routers/abc')).toEqual({ id: 'abc' });
    expect(matchPattern('/routers/:id', '/routers/abc/')).toEqual({ id: 'abc' });
    expect(matchPattern('/routers/:id', '/routers/a%2Fb%20c')).toEqual({ id: 'a/b c' });
    expect(matchPattern('/fleet', '/fleet')).toEqual({});
  });

  it('refuses other shapes, empty and undecodable segments', () => {
    expect(matchPattern('/routers/:id', '/routers')).toBeNull();
    expect(matchPattern('/routers/:id', '/routers/a/b')).toBeNull();
    expect(matchPattern('/routers/:id', '/rollouts/a')).toBeNull();
    expect(matchPattern('/routers/:id', '/routers/%E0%A4%A')).toBeNull();
    expect(matchPattern('/fleet', '/fleetx')).toBeNull();
  });

  it('picks the first route that matches', () => {
    const routes = [{ path: '/rollouts/new' }, { path: '/rollouts/:id' }];
    expect(matchRoute(routes, '/rollouts/new')?.route).toBe(routes[0]);
    expect(matchRoute(routes, '/rollouts/r7')).toEqual({ route: routes[1], params: { id: 'r7' } });
    expect(matchRoute(routes, '/audit')).toBeNull();
  });

  it('fills a pattern, encoding each value, and refuses a missing one', () => {
    expect(pathFor('/routers/:id', { id: 'a/b?c' })).toBe('/routers/a%2Fb%3Fc');
    expect(matchPattern('/routers/:id', pathFor('/routers/:id', { id: 'x y/z' }))).toEqual({ id: 'x y/z' });
    expect(() => pathFor('/routers/:id', {})).toThrow(/no value for :id/);
  });

  it('counts a page as within its section', () => {
    expect(isWithin('/rollouts/abc', '/rollouts')).toBe(true);
    expect(isWithin('/rollouts', '/rollouts/')).toBe(true);
    expect(isWithin('/rolloutsx', '/rollouts')).toBe(false);
  });
});
