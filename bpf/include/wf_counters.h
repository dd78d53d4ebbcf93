/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counters: one PERCPU_ARRAY slot per program object, so the hot path increments without
 * atomics or cache-line bouncing between CPUs. User space sums the per-CPU values:
 *   bpftool map dump pinned /sys/fs/bpf/wrtfleet/<ifname>/<program>/maps/wf_stats -j
 * (agent/datapath/counters.ts: readCounters()).
 *  seen      = packets this program ran on (every packet, including non-IP and garbage)
 *  rewritten = packets whose bytes this program changed (a packet that already carried
 *              the target value is seen but not rewritten)
 * A stand-alone program keeps one struct wf_counters in wf_stats (wf_standalone.h);
 * wf_chain.bpf.c keeps one `seen` and one `rewritten` per rewrite in a map of its own.
 */
#ifndef WF_COUNTERS_H
#define WF_COUNTERS_H

#include <linux/types.h>

struct wf_counters {
	__u64 seen;
	__u64 rewritten;
};

/*
 * The key of every counter lookup (the maps have one slot). In .rodata rather than on the
 * stack, so the lookup passes a constant address instead of storing a zero first.
 */
static volatile const __u32 wf_counter_key = 0;

#endif /* WF_COUNTERS_H */
