/**
 * The placement an operator asks for when onboarding a router (docs/DOMAIN.md, Where the agent runs):
 * `auto` (on the router where Node.js 20+ runs, else the controller-hosted proxy), `on_router` or
 * `proxy`, spelled like the database's Placement enum and the agent's `--placement`, so one value
 * means one thing from the API to the router registry.
 */
export const PLACEMENTS = ['auto', 'on_router', 'proxy'] as const;

export type Placement = (typeof PLACEMENTS)[number];

/** The spelling onboarding used before it matched the enum: still accepted on input for one release. */
export const DEPRECATED_ON_ROUTER = 'on-router';

export type PlacementInput = Placement | typeof DEPRECATED_ON_ROUTER;

/** The placement as stored and reported: the deprecated spelling becomes `on_router`. */
export function canonicalPlacement(placement: PlacementInput): Placement {
  return placement === DEPRECATED_ON_ROUTER ? 'on_router' : placement;
}

/** The placement a string names (the deprecated spelling included), or undefined when it names none. */
export function parsePlacement(value: string): Placement | undefined {
  const canonical = value === DEPRECATED_ON_ROUTER ? 'on_router' : value;
  return PLACEMENTS.find((p) => p === canonical);
}
