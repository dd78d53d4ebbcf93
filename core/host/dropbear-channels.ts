/**
 * How many commands one SSH connection may run at once, by the server's software version:
 * some dropbear releases break under concurrent session channels, and OpenWrt routers run
 * dropbear. SshHost asks here once it has read the server's banner.
 */

/**
 * One command at a time on dropbear 2022.82 to 2024.85 (and on a dropbear that hides its
 * version): there, a child exiting while another session channel awaits its exec makes the
 * server close that channel unanswered ("Unable to exec"), and output for it then aborts the
 * whole connection (`Failed assertion (common-channel.c:705): !channel->sent_close`;
 * mkj/dropbear#173 and #321, fixed in 2024.86). Seen on the lab's Debian 2022.83 under the
 * agent's parallel reads. Undefined: no limit of this kind.
 */
export function dropbearChannelLimit(software: string | undefined): number | undefined {
  const m = /^dropbear(?:_(\d{4})\.(\d+))?/i.exec(software ?? '');
  if (!m) return undefined;
  if (m[1] === undefined) return 1;
  const version = Number(m[1]) * 1000 + Number(m[2]);
  return version >= 2022082 && version < 2024086 ? 1 : undefined;
}
