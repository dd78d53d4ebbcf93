/**
 * The installed packages, from the package manager or its database (parsing is in
 * packages.ts), asking the manager the release most likely has first.
 */
import type { RouterHost } from '../host/router-host.js';
import type { FactRecord } from './fact-record.js';
import {
  packageFacts,
  parseApkDb,
  parseApkList,
  parseOpkgList,
  parseOpkgStatus,
  unknownPackages,
  type InstalledList,
} from './packages.js';
import { openWrtAtLeast } from './release.js';
import { readTextFile, runCommand, type SourceRead } from './source.js';
import type { OpenWrtRelease, PackageFacts } from './types.js';

export async function readPackages(
  host: RouterHost,
  record: FactRecord,
  openwrt: OpenWrtRelease | null,
): Promise<PackageFacts> {
  type Attempt = {
    manager: 'opkg' | 'apk';
    source: string;
    read: () => Promise<SourceRead<string>>;
    parse: (text: string) => InstalledList | null;
  };
  const opkg: Attempt[] = [
    {
      manager: 'opkg',
      source: 'opkg list-installed',
      read: () => runCommand(host, ['opkg', 'list-installed']),
      parse: parseOpkgList,
    },
    {
      manager: 'opkg',
      source: '/usr/lib/opkg/status',
      read: () => readTextFile(host, '/usr/lib/opkg/status'),
      parse: parseOpkgStatus,
    },
  ];
  const apk: Attempt[] = [
    {
      manager: 'apk',
      source: 'apk list --installed',
      read: () => runCommand(host, ['apk', 'list', '--installed']),
      parse: parseApkList,
    },
    {
      manager: 'apk',
      source: '/lib/apk/db/installed',
      read: () => readTextFile(host, '/lib/apk/db/installed'),
      parse: parseApkDb,
    },
  ];
  // 25.12 switched opkg -> apk; ask the likely one first to save a round trip over SSH.
  const apkFirst = openwrt !== null && openWrtAtLeast(openwrt.release, '25.12') === true;
  const attempts = apkFirst ? [...apk, ...opkg] : [...opkg, ...apk];
  const reasons: string[] = [];
  for (const attempt of attempts) {
    const read = await attempt.read();
    if (!read.ok) {
      reasons.push(read.reason);
      continue;
    }
    const list = attempt.parse(read.value);
    if (list) {
      record.evidence('packages', attempt.source);
      return packageFacts(list, attempt.manager, attempt.source);
    }
    reasons.push(`${attempt.source} output has no package entries`);
    record.problem(`${attempt.source} output has no package entries`);
  }
  record.unknown('packages', `${openwrt ? '' : 'not OpenWrt; '}${reasons.join('; ')}`);
  return unknownPackages();
}
