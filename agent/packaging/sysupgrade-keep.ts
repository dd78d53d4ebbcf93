/**
 * The on-router agent's files that a firmware upgrade keeping the configuration must keep:
 * sysupgrade saves what /etc/sysupgrade.conf lists (and opkg's changed conffiles, which ours are
 * not: onboarding copies them, no package installs them). /etc/sysupgrade.conf, not a file of
 * our own in /lib/upgrade/keep.d: that directory is in the image and is replaced by the upgrade,
 * so the next upgrade would lose us; sysupgrade.conf is itself kept. Directories are saved
 * whole. The rc.d link is what starts the agent at boot. Node.js itself is a package and is not
 * kept: an image without it leaves the agent unable to start (docs/ARCHITECTURE.md).
 */
import { shellQuote } from '../../core/host/ssh-command-channel.js';

export const SYSUPGRADE_CONF = '/etc/sysupgrade.conf';

/** The paths to keep, under `prefix` (tests install below a directory). */
export function sysupgradeKeepPaths(prefix = ''): string[] {
  return [
    `${prefix}/usr/lib/wrtfleet`,
    `${prefix}/etc/init.d/wrtfleet-agent`,
    `${prefix}/etc/rc.d/S99wrtfleet-agent`,
    `${prefix}/etc/config/wrtfleet`,
    `${prefix}/etc/wrtfleet`,
  ];
}

/** A shell script that adds each path to sysupgrade.conf once (the operator's own lines stay as they are). */
export function keepOverSysupgradeScript(prefix = ''): string {
  const conf = shellQuote(`${prefix}${SYSUPGRADE_CONF}`);
  return [
    `touch ${conf}`,
    ...sysupgradeKeepPaths(prefix).map((p) => `grep -qxF ${shellQuote(p)} ${conf} || echo ${shellQuote(p)} >> ${conf}`),
  ].join(' && ');
}

/**
 * The script that takes them out again (the agent removed): only our exact lines go, and a file
 * left empty goes too (a real router's always keeps its comment lines; an empty one was ours).
 */
export function forgetOverSysupgradeScript(prefix = ''): string {
  const conf = shellQuote(`${prefix}${SYSUPGRADE_CONF}`);
  const patterns = sysupgradeKeepPaths(prefix)
    .map((p) => `-e ${shellQuote(p)}`)
    .join(' ');
  return `[ -f ${conf} ] || exit 0; grep -vxF ${patterns} ${conf} > ${conf}.wf-tmp; mv -f ${conf}.wf-tmp ${conf}; [ -s ${conf} ] || rm -f ${conf}`;
}
