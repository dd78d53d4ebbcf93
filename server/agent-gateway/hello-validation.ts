import type { Hello } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { CapabilitySet } from '../../proto/gen/wrtfleet/agent/v1/router.js';

/**
 * A router identity is used as a database key, a log field and a
 * certificate subject, so it is held to a conservative alphabet: letters, digits and the
 * punctuation real identities use (board names like "tplink,archer-c7-v2", MACs with ':').
 */
export const ROUTER_IDENTITY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:,@/+-]{0,127}$/;

/**
 * What a real router reports, with room to spare: every field the controller stores and
 * serves back is bounded, so one agent cannot make a router row (and GET /v1/routers/{id})
 * megabytes long. The proto's comments state the same numbers.
 */
export const HELLO_LIMITS = {
  /** Names, versions, SoC and model strings. */
  text: 256,
  /** Linux interface names: IFNAMSIZ is 16 bytes with the terminating NUL. */
  interfaceName: 15,
  wanDevices: 16,
  lanDevices: 64,
  /** Installed packages: a router with LuCI has about 150, a busy x86 box several hundred. */
  packages: 1024,
  packageName: 64,
  packageVersion: 64,
  unknown: 32,
  unknownField: 64,
  /** Free-text explanations (capability and offload reasons, unknown facts). */
  reason: 1024,
  datapathInterfaces: 16,
  datapathPrograms: 8,
  programName: 64,
  /** facts.extra as JSON, and how deeply it nests (the agent's document is about 1 KiB, 3 deep). */
  extraBytes: 16 * 1024,
  extraDepth: 8,
} as const;

export class HelloRejected extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function text(field: string, value: string, { required = false, max = HELLO_LIMITS.text as number } = {}): void {
  if (required && value.length === 0) throw new HelloRejected(field, `${field} is required`);
  if (value.length > max) throw new HelloRejected(field, `${field} is longer than ${max} characters`);
  // Control characters in a fact would end up in logs and the admin UI verbatim.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point: they are rejected
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new HelloRejected(field, `${field} contains control characters`);
}

function list(field: string, values: readonly string[], maxEntries: number, maxLength: number): void {
  if (values.length > maxEntries) throw new HelloRejected(field, `${field} has more than ${maxEntries} entries`);
  values.forEach((value, i) => text(`${field}[${i}]`, value, { max: maxLength }));
}

function capabilitySet(field: string, set: CapabilitySet | undefined): void {
  if (!set) return;
  for (const name of ['hardwareOffload', 'softwareOffload', 'ebpf', 'tcx'] as const) {
    text(`${field}.${name}.reason`, set[name]?.reason ?? '', { max: HELLO_LIMITS.reason });
  }
}

/** How deeply a JSON value nests; stops counting past `limit` so a hostile value costs little. */
export function jsonDepth(value: unknown, limit: number): number {
  if (value === null || typeof value !== 'object') return 0;
  if (limit <= 0) return 1;
  let deepest = 0;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, jsonDepth(child, limit - 1));
    if (deepest >= limit) break;
  }
  return deepest + 1;
}

function facts(f: NonNullable<Hello['facts']>): void {
  for (const field of ['soc', 'arch', 'kernel', 'modelId', 'modelName', 'boardName', 'cpuModel'] as const) {
    text(`facts.${field}`, f[field]);
  }
  for (const field of ['release', 'target', 'revision', 'arch'] as const) {
    text(`facts.openwrt.${field}`, f.openwrt?.[field] ?? '');
  }
  list('facts.wanDevices', f.wanDevices, HELLO_LIMITS.wanDevices, HELLO_LIMITS.interfaceName);
  list('facts.lanDevices', f.lanDevices, HELLO_LIMITS.lanDevices, HELLO_LIMITS.interfaceName);
  const packages = Object.entries(f.packages);
  if (packages.length > HELLO_LIMITS.packages)
    throw new HelloRejected('facts.packages', `facts.packages has more than ${HELLO_LIMITS.packages} entries`);
  for (const [name, version] of packages) {
    text('facts.packages (a package name)', name, { max: HELLO_LIMITS.packageName });
    text(`facts.packages[${JSON.stringify(name)}]`, version, { max: HELLO_LIMITS.packageVersion });
  }
  if (f.unknown.length > HELLO_LIMITS.unknown)
    throw new HelloRejected('facts.unknown', `facts.unknown has more than ${HELLO_LIMITS.unknown} entries`);
  f.unknown.forEach((u, i) => {
    text(`facts.unknown[${i}].field`, u.field, { max: HELLO_LIMITS.unknownField });
    text(`facts.unknown[${i}].reason`, u.reason, { max: HELLO_LIMITS.reason });
  });
  if (f.extra) {
    if (jsonDepth(f.extra, HELLO_LIMITS.extraDepth + 1) > HELLO_LIMITS.extraDepth)
      throw new HelloRejected('facts.extra', `facts.extra nests deeper than ${HELLO_LIMITS.extraDepth} levels`);
    if (JSON.stringify(f.extra).length > HELLO_LIMITS.extraBytes)
      throw new HelloRejected('facts.extra', `facts.extra is larger than ${HELLO_LIMITS.extraBytes} bytes as JSON`);
  }
}

/** Checks a Hello before anything in it reaches storage; throws HelloRejected naming the field. */
export function validateHello(hello: Hello): void {
  const identity = hello.router?.identity ?? '';
  if (!identity) throw new HelloRejected('router.identity', 'router.identity is required');
  if (!ROUTER_IDENTITY_PATTERN.test(identity)) {
    throw new HelloRejected(
      'router.identity',
      'router.identity must be 1-128 characters of [A-Za-z0-9._:,@/+-], starting with a letter or digit',
    );
  }
  text('router.name', hello.router?.name ?? '');
  text('agent.version', hello.agent?.version ?? '', { required: true });
  text('agent.proxyHost', hello.agent?.proxyHost ?? '');
  if (hello.facts) facts(hello.facts);
  capabilitySet('capabilities.predicted', hello.capabilities?.predicted);
  capabilitySet('capabilities.probed', hello.capabilities?.probed);
  if (hello.applied) {
    text('applied.profile', hello.applied.profile, { max: 63 });
    text('applied.planHash', hello.applied.planHash, { max: 128 });
  }
  const datapath = hello.live?.datapath;
  if (datapath) {
    list('live.datapath.interfaces', datapath.interfaces, HELLO_LIMITS.datapathInterfaces, HELLO_LIMITS.interfaceName);
    list('live.datapath.programs', datapath.programs, HELLO_LIMITS.datapathPrograms, HELLO_LIMITS.programName);
  }
  text('live.offload.reason', hello.live?.offload?.reason ?? '', { max: HELLO_LIMITS.reason });
  text('bootId', hello.bootId ?? '', { max: 64 });
}
