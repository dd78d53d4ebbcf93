import type { RouteParams } from './route-match.js';

/**
 * What every page component gets: the params of its URL pattern. Apart from the route table,
 * which imports the pages, so that a page never imports the table back.
 */
export interface PageProps {
  params: RouteParams;
}
