/**
 * What a simulated router adds to the shipped agent's Commands (agent/apply/command-runner.ts,
 * which runs them): a capability probe, which cannot run without a kernel and reports the
 * prediction from the fixture's facts, named as simulated; and the scripted answers tests
 * give a router (a failure, or no answer at all).
 */
import type { PredictedCapabilities } from '../../core/capabilities.js';
import type { ProbedCapabilities } from '../probe/index.js';
import { isoTime } from '../iso-time.js';

/** How a simulated router answers a command (tests script failures with it). */
export type SimulatedCommandOutcome = 'ok' | 'fail' | 'silent';

const FLAGS = ['ebpf', 'tcx', 'softwareOffload', 'hardwareOffload'] as const;

/** REPROBE on a simulated router: the fixture's predicted capabilities, each reason saying so. */
export function simulatedProbe(predicted: PredictedCapabilities): ProbedCapabilities {
  const why = (flag: (typeof FLAGS)[number]) =>
    `simulated: predicted from the fixture facts (${predicted.reasons[flag]})`;
  return {
    flags: Object.fromEntries(FLAGS.map((f) => [f, predicted[f]])),
    reasons: Object.fromEntries(FLAGS.map((f) => [f, why(f)])),
    details: {
      ebpf: { loaded: predicted.ebpf },
      tcx: { ok: predicted.tcx },
      offload: { supported: predicted.softwareOffload, reason: 'simulated' },
    },
    probedAt: isoTime(),
    durationMs: 0,
  };
}
