// SPDX-License-Identifier: GPL-2.0
/*
 * wf_chain: the four rewrites in one program, for the common case of several of them on
 * one interface. Each rewrite is the same inline function its stand-alone program runs
 * (set_ip_id_zero.bpf.c, ...); what the chain saves is per packet: one TCX/cls_bpf dispatch
 * instead of up to four (an indirect call each, with retpolines on most x86 kernels), one
 * link-layer parse, one counter lookup. Forwarded MTU-sized frames cross TC one by one, so
 * that overhead, not the rewrites, is what a router pays for four separate programs.
 *
 * wf_cfg_chain selects the rewrites (bit = WF_CHAIN_*; .rodata, patched by the loader like
 * every other setting, so the verifier drops the disabled ones). Order: the IP header
 * rewrites first, then the SYN rewrites; clear_tcp_syn_ts may pull the TCP options into the
 * linear area, and every rewrite re-derives its pointers from the offsets anyway.
 * Counters: wf_chain_stats holds one struct wf_counters per rewrite, so telemetry reports
 * the same "seen/rewritten per program" whether the rewrites run merged or separately.
 */
#define WF_IN_CHAIN
#include "set_ip_id_zero.bpf.c"
#include "set_ip_ttl.bpf.c"
#include "set_tcp_syn_window.bpf.c"
#include "clear_tcp_syn_ts.bpf.c"

/* Bit per rewrite and slot in wf_chain_counters; the order of PROGRAM_NAMES (agent/datapath/programs.ts). */
#define WF_CHAIN_SET_IP_ID_ZERO 0
#define WF_CHAIN_SET_IP_TTL 1
#define WF_CHAIN_SET_TCP_SYN_WINDOW 2
#define WF_CHAIN_CLEAR_TCP_SYN_TS 3
#define WF_CHAIN_PROGRAMS 4

volatile const __u8 wf_cfg_chain = (1 << WF_CHAIN_PROGRAMS) - 1; /* all four */

struct wf_chain_counters {
	struct wf_counters prog[WF_CHAIN_PROGRAMS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wf_chain_counters);
} wf_chain_stats SEC(".maps");

static __always_inline void wf_chain_step(struct wf_pkt *pk, struct wf_chain_counters *c, const int slot,
					  wf_rewrite_fn rewrite, __u16 proto, __u32 l3off)
{
	if (!(wf_cfg_chain & (1 << slot)))
		return;
	if (c)
		c->prog[slot].seen++;
	if (proto && rewrite(pk, proto, l3off) && c)
		c->prog[slot].rewritten++;
}

SEC("tc")
int wf_chain(struct __sk_buff *skb)
{
	struct wf_chain_counters *c = bpf_map_lookup_elem(&wf_chain_stats, (const void *)&wf_counter_key);
	struct wf_pkt pk = wf_pkt_of(skb);
	__u32 l3off = 0;
	__u16 proto = wf_parse_l2(&pk, &l3off);

	wf_chain_step(&pk, c, WF_CHAIN_SET_IP_ID_ZERO, wf_set_ip_id_zero, proto, l3off);
	wf_chain_step(&pk, c, WF_CHAIN_SET_IP_TTL, wf_set_ip_ttl, proto, l3off);
	wf_chain_step(&pk, c, WF_CHAIN_SET_TCP_SYN_WINDOW, wf_set_tcp_syn_window, proto, l3off);
	wf_chain_step(&pk, c, WF_CHAIN_CLEAR_TCP_SYN_TS, wf_clear_tcp_syn_ts, proto, l3off);
	return WF_CONTINUE;
}

char _license[] SEC("license") = "GPL";
