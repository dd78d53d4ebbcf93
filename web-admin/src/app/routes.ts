import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { PageProps } from './page-props.js';

export interface ConsoleRoute {
  /** Also the page's folder under src/pages/ and its name in test screenshots. */
  id: string;
  /** History API path pattern; ":name" binds a segment. */
  path: string;
  /** The nav entry that is current on this page (a router's page belongs to Fleet). */
  section: string;
  /** Each page is its own chunk, loaded when first visited: the first page ships only its own code. */
  component: LazyExoticComponent<ComponentType<PageProps>>;
}

const fleetPage = () => import('../pages/fleet/FleetPage.js');

/** The pages, in match order. Add a page here and under src/pages/<id>/. */
export const ROUTES: readonly ConsoleRoute[] = [
  { id: 'fleet', path: '/fleet', section: '/fleet', component: lazy(fleetPage) },
  {
    id: 'router',
    path: '/routers/:id',
    section: '/fleet',
    component: lazy(() => import('../pages/router/RouterPage.js')),
  },
  {
    id: 'alerts',
    path: '/alerts',
    section: '/alerts',
    component: lazy(() => import('../pages/alerts/AlertsPage.js')),
  },
  {
    id: 'profiles',
    path: '/profiles',
    section: '/profiles',
    component: lazy(() => import('../pages/profiles/ProfilesPage.js')),
  },
  {
    id: 'rollouts',
    path: '/rollouts',
    section: '/rollouts',
    component: lazy(() => import('../pages/rollouts/RolloutsPage.js')),
  },
  {
    id: 'rollout',
    path: '/rollouts/:id',
    section: '/rollouts',
    component: lazy(() => import('../pages/rollouts/RolloutPage.js')),
  },
  {
    id: 'intent',
    path: '/intent',
    section: '/intent',
    component: lazy(() => import('../pages/intent/IntentPage.js')),
  },
  {
    id: 'firmware',
    path: '/firmware',
    section: '/firmware',
    component: lazy(() => import('../pages/firmware/FirmwarePage.js')),
  },
  {
    id: 'commands',
    path: '/commands',
    section: '/commands',
    component: lazy(() => import('../pages/commands/CommandsPage.js')),
  },
  {
    id: 'command',
    path: '/commands/:id',
    section: '/commands',
    component: lazy(() => import('../pages/commands/CommandPage.js')),
  },
  { id: 'audit', path: '/audit', section: '/audit', component: lazy(() => import('../pages/audit/AuditPage.js')) },
  {
    id: 'onboarding',
    path: '/onboarding',
    section: '/onboarding',
    component: lazy(() => import('../pages/onboarding/OnboardingPage.js')),
  },
  { id: 'access', path: '/access', section: '/access', component: lazy(() => import('../pages/access/AccessPage.js')) },
];

/**
 * The main navigation. A router's page has no entry of its own: it is reached from the fleet.
 * `badge`: a live count beside the label (Shell.tsx draws it).
 */
export const NAV: readonly { href: string; label: string; badge?: 'alerts' }[] = [
  { href: '/fleet', label: 'Fleet' },
  { href: '/alerts', label: 'Alerts', badge: 'alerts' },
  { href: '/profiles', label: 'Profiles' },
  { href: '/rollouts', label: 'Rollouts' },
  // "Intent", not the page's title "Fleet intent": the Fleet entry stays the only one whose
  // name starts with "Fleet", so it is found by its name (by tests, by a screen reader's typing).
  { href: '/intent', label: 'Intent' },
  { href: '/firmware', label: 'Firmware' },
  { href: '/commands', label: 'Commands' },
  { href: '/audit', label: 'Audit' },
  { href: '/onboarding', label: 'Onboarding' },
  { href: '/access', label: 'Access' },
];

/** Where "/" and the console's start go. */
export const HOME = '/fleet';

/**
 * Fetches the home page's chunk ahead of need (the module loader keeps it for the lazy route),
 * so it is ready while the operator types their password instead of after "Sign in".
 */
export function preloadHomePage(): void {
  void fleetPage().catch(() => undefined);
}
