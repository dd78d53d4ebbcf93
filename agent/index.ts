/**
 * The agent as a library: what a controller needs to host agents itself (the proxy placement
 * for onboarded routers, the simulated fleet of the demo) and to install one on a router.
 * The controller imports the agent through this module only; `agent/main.ts` is the CLI.
 */
export { RouterAgent } from './router-agent.js';
export { AgentCredentials } from './enrollment/agent-credentials.js';
export { keepRenewed } from './enrollment/certificate-renewal.js';
export { tcxHelperBinaryFor } from './datapath/programs.js';
export { AGENT_ENTRY_FILE, OLD_AGENT_ENTRY_FILE } from './packaging/layout.js';
export { forgetOverSysupgradeScript, keepOverSysupgradeScript } from './packaging/sysupgrade-keep.js';
export { startSimulatedFleet, stopFleet } from './sim/simulated-fleet.js';
export { defaultFixturesDir, fixtureModels } from './sim/fixtures.js';
export {
  firmwareScriptByRules,
  type SimulatedFirmwareEnding,
  type SimulatedFirmwareOptions,
  type SimulatedFirmwareRule,
  type SimulatedFirmwareScript,
} from './sim/simulated-firmware-script.js';
