// SPDX-License-Identifier: GPL-2.0
/*
 * wf_chain: the four rewrites in one program, for the common case of several of them on
 * one interface. Each rewrite is the same inline function its stand-alone program runs
 * (include/wf_set_ip_id_zero.h, ...); what the chain saves is per packet: one TCX/cls_bpf
 * dispatch instead of up to four, one link-layer parse, one counter lookup.
 *
 * wf_cfg_chain selects the rewrites (bit = WF_CHAIN_*; .rodata, patched by the loader like
 * every other setting, so the verifier drops the disabled ones). The chain also shares work
 * between rewrites of the same header, using each rewrite's own parts:
 *  - set_ip_id_zero and set_ip_ttl (wanted/apply pairs, see wf_ipv4_rewrite) on one IPv4
 *    header: one length check, one read and one write of the header checksum;
 *  - set_tcp_syn_window and clear_tcp_syn_ts (wf_syn_rewrite_fn) on one first SYN, found
 *    once: a data segment, what nearly every packet is, is turned away by one test.
 * Counters: wf_chain_stats holds the packets the chain ran on (every rewrite in it sees every
 * packet, so one `seen` stands for all of them) and one `rewritten` per rewrite, so telemetry
 * reports the same "seen/rewritten per program" whether the rewrites run merged or separately.
 * Little of this stays in cache from one packet to the next, so the chain keeps what it touches
 * small; measured in docs/BENCHMARKS.md#why-the-programs-look-the-way-they-do.
 */
#include "wf_proto.h"
#include "wf_pkt.h"
#include "wf_l2.h"
#include "wf_counters.h"
#include "wf_ipv4.h"
#include "wf_syn.h"
#include "wf_set_ip_id_zero.h"
#include "wf_set_ip_ttl.h"
#include "wf_set_tcp_syn_window.h"
#include "wf_clear_tcp_syn_ts.h"

/* Bit per rewrite and slot in wf_chain_counters.rewritten; the order of PROGRAM_NAMES (agent/datapath/programs.ts). */
#define WF_CHAIN_SET_IP_ID_ZERO 0
#define WF_CHAIN_SET_IP_TTL 1
#define WF_CHAIN_SET_TCP_SYN_WINDOW 2
#define WF_CHAIN_CLEAR_TCP_SYN_TS 3
#define WF_CHAIN_PROGRAMS 4

volatile const __u8 wf_cfg_chain = (1 << WF_CHAIN_PROGRAMS) - 1; /* all four */

struct wf_chain_counters {
	__u64 seen;                         /* packets the chain ran on */
	__u64 rewritten[WF_CHAIN_PROGRAMS]; /* packets each rewrite changed, slot WF_CHAIN_* */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wf_chain_counters);
} wf_chain_stats SEC(".maps");

/*
 * `chain` is wf_cfg_chain as read once at the program's start: a register (or a stack slot)
 * that the verifier knows to be constant as it knows the .rodata byte, where every test of
 * wf_cfg_chain itself would load it again.
 */
#define WF_CHAIN_HAS(chain, slot) ((chain) & (1 << (slot)))
#define WF_CHAIN_SYN_REWRITES ((1 << WF_CHAIN_SET_TCP_SYN_WINDOW) | (1 << WF_CHAIN_CLEAR_TCP_SYN_TS))

static __always_inline void wf_chain_count(struct wf_chain_counters *c, const int slot, int changed)
{
	if (changed)
		c->rewritten[slot]++;
}

/*
 * set_ip_id_zero and set_ip_ttl on one IPv4 header: wf_ipv4_rewrite's steps, with both
 * pairs between one length check and one checksum update. Nothing here may move packet
 * data: the caller reads iph again after it.
 */
static __always_inline void wf_chain_ipv4(struct wf_pkt *pk, __u32 l3off, struct iphdr *iph, __u8 chain,
                                          struct wf_chain_counters *c)
{
	int id, ttl;
	__u32 sum;

	id = WF_CHAIN_HAS(chain, WF_CHAIN_SET_IP_ID_ZERO) && wf_ip_id_zero_wanted(iph);
	ttl = WF_CHAIN_HAS(chain, WF_CHAIN_SET_IP_TTL) && wf_ip_ttl_wanted(iph);
	if (!(id || ttl) || !wf_ipv4_hdr_len_ok(pk, l3off, iph))
		return;
	sum = wf_csum_edit_begin(&iph->check);
	if (id)
		sum = wf_ip_id_zero_apply(iph, sum);
	if (ttl)
		sum = wf_ip_ttl_apply(iph, sum);
	wf_csum_edit_end(&iph->check, sum);
	wf_chain_count(c, WF_CHAIN_SET_IP_ID_ZERO, id);
	wf_chain_count(c, WF_CHAIN_SET_IP_TTL, ttl);
}

SEC("tc")
int wf_chain(struct __sk_buff *skb)
{
	const __u8 chain = wf_cfg_chain;
	struct wf_chain_counters *c = bpf_map_lookup_elem(&wf_chain_stats, (const void *)&wf_counter_key);
	struct wf_pkt pk = wf_pkt_of(skb);
	__u32 l3off = 0;
	__u16 proto;
	struct iphdr *iph;
	struct wf_syn syn;

	/*
	 * Cannot fail (key 0 of a one-slot array); said once here, so no later counter access
	 * tests the pointer again, and the verifier walks one program instead of two (with and
	 * without counters).
	 */
	if (!c)
		return WF_CONTINUE;
	c->seen++;
	proto = wf_parse_l2(&pk, &l3off);
	if (proto == WF_ETH_P_IPV6 && WF_CHAIN_HAS(chain, WF_CHAIN_SET_IP_TTL))
		wf_chain_count(c, WF_CHAIN_SET_IP_TTL, wf_set_ipv6_hop_limit(&pk, l3off));
	if (proto != WF_ETH_P_IP || !wf_ipv4(&pk, l3off, &iph))
		return WF_CONTINUE;
	if (WF_CHAIN_HAS(chain, WF_CHAIN_SET_IP_ID_ZERO) || WF_CHAIN_HAS(chain, WF_CHAIN_SET_IP_TTL))
		wf_chain_ipv4(&pk, l3off, iph, chain, c);
	if (!(chain & WF_CHAIN_SYN_REWRITES) || !wf_ipv4_hdr_first_syn(&pk, l3off, iph, &syn))
		return WF_CONTINUE;
	/* The window first: it is the rewrite that reads syn.th (see wf_syn_rewrite_fn). */
	if (WF_CHAIN_HAS(chain, WF_CHAIN_SET_TCP_SYN_WINDOW))
		wf_chain_count(c, WF_CHAIN_SET_TCP_SYN_WINDOW, wf_syn_window_rewrite(&pk, l3off, &syn));
	if (WF_CHAIN_HAS(chain, WF_CHAIN_CLEAR_TCP_SYN_TS))
		wf_chain_count(c, WF_CHAIN_CLEAR_TCP_SYN_TS, wf_syn_ts_rewrite(&pk, l3off, &syn));
	return WF_CONTINUE;
}

char _license[] SEC("license") = "GPL";
