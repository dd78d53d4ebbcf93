/** Facts about a router (docs/DOMAIN.md, Knowing the device): what it is, what it runs, what it has installed. */
export { collectFacts } from './collect.js';
export type {
  DefaultRoute,
  Endian,
  OpenWrtRelease,
  OtherOs,
  PackageFacts,
  PackageManager,
  RouterFacts,
  TcVariant,
  UnknownField,
} from './types.js';
export { compareKernelVersions, kernelAtLeast, parseKernelVersion, type KernelVersion } from './kernel.js';
export { openWrtAtLeast, parseOpenWrtVersion, type OpenWrtVersion } from './release.js';
export { socFamilyOf, socFromCompatibleEntry } from './soc.js';
