/**
 * Where the agent bundle's entry lives: one name for the build, onboarding, the init script's
 * tests and the benchmarks. CommonJS (`.cjs`), not an ES module: see agent/packaging/build.ts.
 */
export const AGENT_ENTRY_FILE = 'agent.cjs';
/** The entry file name of bundles built before the CommonJS entry; onboarding removes it on upgrade. */
export const OLD_AGENT_ENTRY_FILE = 'agent.mjs';
