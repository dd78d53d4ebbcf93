/**
 * Step 1 of resolvePlan: the capabilities the plan goes by, each with its source (probed or
 * predicted) and the reason for its value.
 */
import { predictCapabilities } from '../capabilities.js';
import type { CapabilityName, EffectiveCapability, PlanRouter } from './types.js';

const CAPABILITY_NAMES: readonly CapabilityName[] = ['ebpf', 'tcx', 'softwareOffload', 'hardwareOffload'];

export function effectiveCapabilities(router: PlanRouter): Record<CapabilityName, EffectiveCapability> {
  const given = router.capabilities?.predicted;
  const needsPrediction = !given || CAPABILITY_NAMES.some((name) => typeof given[name] !== 'boolean');
  const computed = needsPrediction ? predictCapabilities(router.facts) : null;
  const probed = router.capabilities?.probed;

  const pick = (name: CapabilityName): EffectiveCapability => {
    const probedValue = probed?.[name];
    const predictedValue = typeof given?.[name] === 'boolean' ? (given[name] as boolean) : (computed?.[name] ?? false);
    const predictedReason =
      (typeof given?.[name] === 'boolean' ? given.reasons?.[name] : computed?.reasons[name]) ??
      `predicted ${predictedValue} (no reason supplied)`;
    if (typeof probedValue === 'boolean') {
      const overrides =
        probedValue !== predictedValue
          ? `, overriding the prediction (${predictedValue}: ${predictedReason})`
          : ', confirming the prediction';
      return {
        value: probedValue,
        source: 'probed',
        reason: `${probed?.reasons?.[name] ?? `probed ${probedValue} on the device`}${overrides}`,
      };
    }
    return { value: predictedValue, source: 'predicted', reason: predictedReason };
  };

  const result = Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, pick(name)])) as Record<
    CapabilityName,
    EffectiveCapability
  >;
  // Dependent flags: TCX is an eBPF attach method; flow_offloading_hw does nothing without flow_offloading.
  if (result.tcx.value && !result.ebpf.value)
    result.tcx = {
      value: false,
      source: result.ebpf.source,
      reason: `eBPF unavailable (${result.ebpf.reason}), so no TCX`,
    };
  if (result.hardwareOffload.value && !result.softwareOffload.value) {
    result.hardwareOffload = {
      value: false,
      source: result.softwareOffload.source,
      reason: `flow_offloading_hw needs software offloading, which is unavailable (${result.softwareOffload.reason})`,
    };
  }
  return result;
}
