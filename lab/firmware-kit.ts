/**
 * What makes a lab guest (Debian's MIPS userland, no OpenWrt) look like an OpenWrt router to a
 * firmware upgrade: the release files core/facts reads, /tmp/sysinfo/board_name, and a
 * `sysupgrade` with OpenWrt's command line for what the agent calls (agent/firmware/
 * firmware-router-steps.ts). It is installed over SSH at run time and kept on the guest's flash
 * disk (lab/guest-flash.ts), the one place a reboot does not wipe; the guest's /init lays it
 * back over the initramfs at every boot, with dropbear's host key, so the proxy's pinned key
 * still holds after the reboot.
 *
 * Simulated: the flash. `sysupgrade -T` checks the image's fwtool metadata names this board (as
 * OpenWrt's does, among more); `sysupgrade` switches the release files to the image's release and
 * revision (read from the same metadata) and reboots the guest for real (`reboot -f`: QEMU resets
 * the machine; a new kernel boot, a new boot id). With /etc/lab-sysupgrade-fallback present it
 * reboots without switching, as a router whose bootloader fell back to the old image.
 */
import { writeFwtoolImage } from '../core/firmware/index.js';
import type { CheckedGuest } from './checks/lab-check.js';

/** What OpenWrt calls QEMU's malta board (its device tree's first compatible) and target. */
export const LAB_BOARD = 'mti,malta';
export const LAB_TARGET = 'malta/le';
const LAB_OPENWRT_ARCH = 'mipsel_24kc';

export interface LabRelease {
  release: string;
  revision: string;
}

/** Present, the next flash falls back: the guest reboots on the release it runs. */
export const FALLBACK_MARKER = '/etc/lab-sysupgrade-fallback';

const SET_RELEASE = '/usr/sbin/lab-set-release';
const FLASH_LIST = '/etc/lab-flash-files';
const HOST_KEY = '/etc/dropbear/dropbear_ed25519_host_key';
/** The kit's own files: installed, kept on the flash, removed by removeFirmwareKit. */
const KIT_FILES = [
  '/etc/openwrt_release',
  '/usr/lib/os-release',
  '/etc/os-release',
  '/tmp/sysinfo/board_name',
  '/sbin/sysupgrade',
  SET_RELEASE,
  FLASH_LIST,
];

/** Writes OpenWrt's release files for RELEASE REVISION, then saves the kit to the flash. */
const setReleaseScript = `#!/bin/sh
# lab-set-release RELEASE REVISION: OpenWrt's release files for that build (lab/firmware-kit.ts),
# then every file listed in ${FLASH_LIST} saved to the flash disk as a tar (/init unpacks it).
set -eu
release=$1
revision=$2
cat >/etc/openwrt_release <<EOF
DISTRIB_ID='OpenWrt'
DISTRIB_RELEASE='$release'
DISTRIB_REVISION='$revision'
DISTRIB_TARGET='${LAB_TARGET}'
DISTRIB_ARCH='${LAB_OPENWRT_ARCH}'
DISTRIB_DESCRIPTION='OpenWrt $release $revision'
DISTRIB_TAINTS=''
EOF
mkdir -p /usr/lib
cat >/usr/lib/os-release <<EOF
NAME="OpenWrt"
VERSION="$release"
ID="openwrt"
ID_LIKE="lede openwrt"
PRETTY_NAME="OpenWrt $release"
VERSION_ID="$release"
BUILD_ID="$revision"
OPENWRT_BOARD="${LAB_TARGET}"
OPENWRT_ARCH="${LAB_OPENWRT_ARCH}"
OPENWRT_RELEASE="OpenWrt $release $revision"
EOF
ln -sf ../usr/lib/os-release /etc/os-release
[ -b /dev/vda ] || { echo "no flash disk (/dev/vda): nothing would survive the reboot" >&2; exit 1; }
# shellcheck disable=SC2046 # one path per word
tar -cf /dev/vda -C / $(cat ${FLASH_LIST})
sync
`;

const sysupgradeScript = `#!/bin/sh
# sysupgrade of the wrtfleet lab (lab/firmware-kit.ts): OpenWrt's command line for what the agent
# runs, over a simulated flash. -T: the image's fwtool metadata must list this board. Without -T:
# the release files become the image's release (kept on the flash disk), then a real reboot.
set -u
test_only=0
while [ $# -gt 1 ]; do
  case $1 in
    -T) test_only=1 ;;
    -n) ;; # the configuration is not kept: the lab keeps none anyway
    *)
      echo "sysupgrade (lab): unsupported option $1" >&2
      exit 1
      ;;
  esac
  shift
done
image=\${1:-}
[ -f "$image" ] || {
  echo "Image file '$image' not found." >&2
  exit 1
}
refuse() {
  echo "$1" >&2
  echo "Image check failed." >&2
  exit 1
}
# fwtool's metadata block: an 8-byte header of zeros, one line of JSON, a 16-byte trailer; at the
# image's end, within fwtool's 30 KiB limit.
meta=$(tail -c 32768 "$image" | tr -d '\\000' | grep '"supported_devices"' | tail -n 1 | sed 's/^[^{]*//')
[ -n "$meta" ] || refuse "Image metadata not found"
board=$(cat /tmp/sysinfo/board_name 2>/dev/null)
devices=$(echo "$meta" | sed -n 's/.*"supported_devices":\\[\\([^]]*\\)\\].*/\\1/p')
case ",$devices," in
  *",\\"$board\\","*) ;;
  *) refuse "Device $board not supported by this image
Supported devices: $(echo "$devices" | tr -d '"')" ;;
esac
release=$(echo "$meta" | sed -n 's/.*"version":{[^}]*"version":"\\([^"]*\\)".*/\\1/p')
revision=$(echo "$meta" | sed -n 's/.*"version":{[^}]*"revision":"\\([^"]*\\)".*/\\1/p')
[ -n "$release" ] || refuse "The image's metadata names no version"
[ "$test_only" = 1 ] && exit 0

echo "Commencing upgrade to $release ($revision)"
if [ -e ${FALLBACK_MARKER} ]; then
  echo "lab: the flash falls back; rebooting on the release the router had"
  release="the old release (the flash fell back)"
  revision=lab
else
  ${SET_RELEASE} "$release" "$revision" || exit 1
fi
# OpenWrt's sysupgrade takes seconds before its reboot too: the SSH channel that started it closes.
sleep 2
echo "LAB-SYSUPGRADE rebooting into $release ($revision)" >/dev/console
reboot -f
`;

/**
 * Installs the kit with `installed` as the router's release and saves it to the flash. Fails
 * loudly when a kit file is there already: the guest is then not the image as built.
 */
export async function installFirmwareKit(guest: CheckedGuest, installed: LabRelease): Promise<void> {
  const present = await guest.host.run(['sh', '-c', `for f in ${KIT_FILES.join(' ')}; do [ -e $f ] && echo $f; done`]);
  if (present.stdout.trim())
    throw new Error(`the guest already has ${present.stdout.trim().split('\n').join(', ')}: not the image as built`);
  await guest.host.run(['mkdir', '-p', '/tmp/sysinfo', '/usr/sbin']);
  await guest.host.writeFile('/tmp/sysinfo/board_name', `${LAB_BOARD}\n`, 0o644);
  await guest.host.writeFile('/sbin/sysupgrade', sysupgradeScript, 0o755);
  await guest.host.writeFile(SET_RELEASE, setReleaseScript, 0o755);
  const kept = [...KIT_FILES, HOST_KEY].map((p) => p.slice(1));
  await guest.host.writeFile(FLASH_LIST, `${kept.join('\n')}\n`, 0o644);
  const set = await guest.host.run([SET_RELEASE, installed.release, installed.revision]);
  if (set.code !== 0)
    throw new Error(`lab-set-release ${installed.release}: ${set.stderr.trim() || set.stdout.trim()}`);
}

/** Leaves the guest as built: the kit's files gone, the flash blank (the host key stays in RAM). */
export async function removeFirmwareKit(guest: CheckedGuest): Promise<void> {
  await guest.host.run([
    'sh',
    '-c',
    `rm -f ${KIT_FILES.join(' ')} ${FALLBACK_MARKER}; rmdir /tmp/sysinfo; ` +
      'dd if=/dev/zero of=/dev/vda bs=4096 count=64 2>/dev/null; sync',
  ]);
}

/**
 * A sysupgrade image for the lab's board with `build` in its fwtool metadata, as OpenWrt's build
 * writes it; its payload is filler text of `payloadBytes` (no guest can flash it anyway).
 */
export function labFirmwareImage(build: LabRelease, payloadBytes: number): Uint8Array {
  const line = new TextEncoder().encode(`wrtfleet lab firmware ${build.release} ${build.revision}\n`);
  const payload = new Uint8Array(payloadBytes);
  for (let i = 0; i < payloadBytes; i += line.length) payload.set(line.subarray(0, payloadBytes - i), i);
  payload[payloadBytes - 1] = 0x0a; // the metadata's JSON starts a line of its own
  return writeFwtoolImage(payload, {
    metadata_version: '1.1',
    compat_version: '1.0',
    supported_devices: [LAB_BOARD],
    version: {
      dist: 'OpenWrt',
      version: build.release,
      revision: build.revision,
      target: LAB_TARGET,
      board: 'generic',
    },
  });
}

export function labImageFileName(build: LabRelease): string {
  return `openwrt-${build.release}-malta-le-vmlinux-initramfs-sysupgrade.bin`;
}
