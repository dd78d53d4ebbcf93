/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A rewrite as its own TC program (bpf/<name>.bpf.c): its counter map and the body every
 * stand-alone program runs. wf_chain.bpf.c does not include this: it counts in a map of
 * its own.
 */
#ifndef WF_STANDALONE_H
#define WF_STANDALONE_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "wf_proto.h"
#include "wf_pkt.h"
#include "wf_l2.h"
#include "wf_counters.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wf_counters);
} wf_stats SEC(".maps");

/* A rewrite on a parsed frame: (packet, WF_ETH_P_IP or WF_ETH_P_IPV6, L3 offset) -> 1 if changed. */
typedef int (*wf_rewrite_fn)(struct wf_pkt *pk, __u16 proto, __u32 l3off);

/* Counts one packet; `changed` is a constant at each call site. */
static __always_inline void wf_count(const int changed)
{
	struct wf_counters *c = bpf_map_lookup_elem(&wf_stats, (const void *)&wf_counter_key);

	if (!c)
		return;
	c->seen++;
	if (changed)
		c->rewritten++;
}

/*
 * The body of every stand-alone program: parse the link layer, rewrite, count.
 * Always inlined with a constant `rewrite`, so no indirect call survives compilation.
 * Counted after the rewrite, in one tail per outcome: nothing (neither the counter
 * pointer nor the outcome) has to survive the parse in a callee-saved register, which
 * the parse needs for itself.
 */
static __always_inline int wf_run_one(struct __sk_buff *skb, wf_rewrite_fn rewrite)
{
	struct wf_pkt pk = wf_pkt_of(skb);
	__u32 l3off = 0;
	__u16 proto;

	proto = wf_parse_l2(&pk, &l3off);
	if (proto && rewrite(&pk, proto, l3off))
		wf_count(1);
	else
		wf_count(0);
	return WF_CONTINUE;
}

#endif /* WF_STANDALONE_H */
