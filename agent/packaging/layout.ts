/**
 * The agent bundle's entry file: one name for the build, onboarding and the tests (the procd
 * init script and the proxy's systemd unit spell it out; the bundle and onboarding tests check
 * both). CommonJS (`.cjs`), not an ES module: see agent/packaging/sections.ts.
 */
export const AGENT_ENTRY_FILE = 'agent.cjs';
/** The entry file name of bundles built before the CommonJS entry; onboarding removes it on upgrade. */
export const OLD_AGENT_ENTRY_FILE = 'agent.mjs';
