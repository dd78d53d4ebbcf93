/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared parsing, checksum and counter code for the wrtfleet TC egress programs.
 *
 * Every program is its own object (bpf/<name>.bpf.c) so the agent can chain any subset.
 * They all follow the same rules:
 *
 *  - Return WF_CONTINUE (-1) on every path, rewritten or not, garbage or not.
 *    -1 is TCX_NEXT for TCX links and TC_ACT_UNSPEC for direct-action cls_bpf filters:
 *    in both worlds it means "run the next program/filter"; when the chain ends, the
 *    kernel's default is to pass the packet. TC_ACT_OK (== TCX_PASS) would instead end the
 *    chain: a garbage frame would then skip every later program, including other tools'
 *    programs attached after ours (shapers, monitors). So "leave the frame unchanged"
 *    is expressed as "unchanged bytes + continue", which on its own is a pass.
 *  - Never read past data_end; a frame shorter than the header we need (compared
 *    with skb->len, not just the linear area) is left unchanged.
 *  - Headers that sit outside the linear area (possible for forwarded/GRO packets)
 *    are pulled with bpf_skb_pull_data only when needed and only as far as needed,
 *    so the fast path on ordinary packets never copies payload.
 *  - Packet accesses at variable offsets are 1 or 2 bytes wide and 2-byte aligned
 *    relative to the TCP/IP header start, so the programs also pass the verifier on
 *    strict-alignment CPUs (MIPS routers, where NET_IP_ALIGN is 2).
 */
#ifndef WF_COMMON_H
#define WF_COMMON_H

#include <linux/bpf.h>
#include <linux/types.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* -1: TCX_NEXT for TCX links, TC_ACT_UNSPEC for cls_bpf direct-action (see above). */
#define WF_CONTINUE (-1)

/* L2 framing of the device the program is attached to; set per interface by the loader. */
#define WF_L2_ETHERNET 0 /* frames start with an Ethernet header (veth, eth, VLAN devs) */
#define WF_L2_RAW_IP 1   /* PPP (pppoe-wan, ppp0), tun: skb data starts at the IP header */

/* Ethernet framing (IEEE 802.3, 802.1Q, 802.1ad, RFC 2516 PPPoE). */
#define WF_ETH_HLEN 14           /* dst MAC 6 + src MAC 6 + ethertype 2 */
#define WF_ETH_PROTO_OFF 12      /* ethertype follows the two MAC addresses */
#define WF_ETH_P_IP 0x0800
#define WF_ETH_P_IPV6 0x86DD
#define WF_ETH_P_8021Q 0x8100    /* customer VLAN tag */
#define WF_ETH_P_8021AD 0x88A8   /* service VLAN tag (QinQ outer) */
#define WF_ETH_P_PPP_SES 0x8864  /* PPPoE session stage; discovery (0x8863) carries no IP */
#define WF_VLAN_HLEN 4           /* TCI 2 + inner ethertype 2 */
#define WF_MAX_VLAN_TAGS 2       /* QinQ: an 802.1ad tag over an 802.1Q tag */
#define WF_PPPOE_HLEN 6          /* ver/type 1, code 1, session id 2, length 2 */
#define WF_PPP_PROTO_LEN 2       /* the PPP protocol field that follows the PPPoE header */
#define WF_PPPOE_VER_TYPE 0x11   /* version 1, type 1: the only values RFC 2516 defines */
#define WF_PPPOE_CODE_SESSION 0x00 /* session data frames carry code 0 */
#define WF_PPP_IP 0x0021         /* PPP protocol number of IPv4 */
#define WF_PPP_IPV6 0x0057       /* PPP protocol number of IPv6 */

/* IPv4 (RFC 791) and IPv6 (RFC 8200). */
#define WF_IPV4_MIN_HLEN 20      /* IHL 5: header without options */
#define WF_IPV4_FRAG_OFF_MASK 0x1FFF /* fragment offset bits of frag_off; non-zero = not the first fragment */
#define WF_IPV6_HLEN 40
#define WF_IPPROTO_TCP 6

/* TCP (RFC 9293, RFC 7323). */
#define WF_TCP_MIN_HLEN 20       /* data offset 5: header without options */
#define WF_TCP_MAX_OPT_LEN 40    /* data offset is 4 bits: at most 60 - 20 bytes of options */
#define WF_TCP_FLAGS_OFF 13      /* byte holding CWR..FIN */
#define WF_TCP_FLAG_SYN 0x02
#define WF_TCP_FLAG_ACK 0x10
#define WF_TCPOPT_EOL 0
#define WF_TCPOPT_NOP 1
#define WF_TCPOPT_TIMESTAMP 8
#define WF_TCPOLEN_TIMESTAMP 10  /* kind 1, len 1, TSval 4, TSecr 4 */
#define WF_TCP_CSUM_OFF 16       /* offset of the checksum inside the TCP header */

/*
 * Upper bound for every header offset we compute: 2 VLAN tags + PPPoE + max IPv4 header
 * + max TCP header is 14 + 8 + 8 + 60 + 60 = 150. The verifier needs a known maximum
 * for variable packet offsets; anything beyond is garbage by construction.
 */
#define WF_MAX_HDR_OFF 256

/*
 * Counters: one PERCPU_ARRAY slot per program object, so the hot path increments without
 * atomics or cache-line bouncing between CPUs. User space sums the per-CPU values:
 *   bpftool map dump pinned /sys/fs/bpf/wrtfleet/<ifname>/<program>/maps/wf_stats -j
 * (agent/datapath/counters.ts: readCounters()).
 *  seen      = packets this program ran on (every packet, including non-IP and garbage)
 *  rewritten = packets whose bytes this program changed (a packet that already carried
 *              the target value is seen but not rewritten)
 */
struct wf_counters {
	__u64 seen;
	__u64 rewritten;
};

/*
 * The key of every counter lookup (the maps have one slot). In .rodata rather than on the
 * stack, so the lookup passes a constant address instead of storing a zero first.
 */
static volatile const __u32 wf_counter_key = 0;

/* wf_chain.bpf.c keeps one struct wf_counters per program in a map of its own. */
#ifndef WF_IN_CHAIN
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wf_counters);
} wf_stats SEC(".maps");
#endif

/*
 * Link-level framing of the attached device. .rodata: the loader patches the value in
 * the object file per interface before loading, so the verifier sees a constant and
 * drops the branch that does not apply.
 */
volatile const __u8 wf_cfg_l2 = WF_L2_ETHERNET;

/*
 * The packet as the programs see it: the skb and the bounds of its linear area, kept in
 * registers from one header access to the next instead of being re-read from the skb.
 * Any helper that may move packet data (bpf_skb_pull_data, the checksum helpers) makes
 * the verifier forget every packet pointer, so each such call here is followed by
 * wf_pkt_reload, and no pointer obtained before it is used after it.
 */
struct wf_pkt {
	struct __sk_buff *skb;
	__u8 *data;
	__u8 *end;
};

static __always_inline void wf_pkt_reload(struct wf_pkt *pk)
{
	pk->data = (__u8 *)(long)pk->skb->data;
	pk->end = (__u8 *)(long)pk->skb->data_end;
}

static __always_inline struct wf_pkt wf_pkt_of(struct __sk_buff *skb)
{
	struct wf_pkt pk = { .skb = skb };

	wf_pkt_reload(&pk);
	return pk;
}

/*
 * *out = pointer to [off, off+len) when those bytes are already in the linear area; 0 (and
 * *out left alone) otherwise. Never pulls, so it leaves every other packet pointer valid:
 * the way to re-read bytes an earlier wf_ptr made linear.
 */
static __always_inline int wf_ptr_linear(const struct wf_pkt *pk, __u32 off, const __u32 len, __u8 **out)
{
	__u8 *p;

	if (off > WF_MAX_HDR_OFF)
		return 0;
	p = pk->data + off;
	/* Keep p in one register: the verifier only trusts the exact register it range-checked. */
	asm volatile("" : "+r"(p));
	if (p + len > pk->end)
		return 0;
	*out = p;
	return 1;
}

/*
 * *out = pointer to [off, off+len) in the linear area, pulling it in when the frame is long
 * enough but the bytes sit in paged fragments. Returns 0 (and leaves *out alone) when the
 * frame is too short. Success is the return value, not a non-NULL pointer, so the compiler
 * can see that the fast path never fails and drops the caller's failure test from it.
 * Pointers obtained before a call that pulled are stale after it.
 */
static __always_inline int wf_ptr(struct wf_pkt *pk, __u32 off, const __u32 len, __u8 **out)
{
	/* Expected: clang then lays the pull path out of line, and the fast path jumps nowhere. */
	if (__builtin_expect(wf_ptr_linear(pk, off, len, out), 1))
		return 1;
	if (off > WF_MAX_HDR_OFF || off + len > pk->skb->len)
		return 0;
	if (bpf_skb_pull_data(pk->skb, off + len)) {
		wf_pkt_reload(pk);
		return 0;
	}
	wf_pkt_reload(pk);
	return wf_ptr_linear(pk, off, len, out);
}

/* Makes [0, end) linear (pulling only when the frame is long enough). 1 on success. */
static __always_inline int wf_linear(struct wf_pkt *pk, __u32 end)
{
	int err;

	if (end > WF_MAX_HDR_OFF)
		return 0;
	if (pk->data + end <= pk->end)
		return 1;
	if (end > pk->skb->len)
		return 0;
	err = bpf_skb_pull_data(pk->skb, end);
	wf_pkt_reload(pk);
	return err == 0;
}

static __always_inline __u16 wf_load_be16(const void *p)
{
	return bpf_ntohs(*(const __be16 *)p);
}

/*
 * Finds the network header. Returns WF_ETH_P_IP, WF_ETH_P_IPV6 or 0 (anything else:
 * ARP, PPPoE discovery, LCP, truncated frames) and stores the L3 offset in *l3off.
 */
static __always_inline __u16 wf_parse_l2(struct wf_pkt *pk, __u32 *l3off)
{
	__u16 proto;
	__u32 off;
	__u8 *p;

	/*
	 * Unexpected, so the Ethernet path is the straight line: the verifier sees the constant,
	 * and the branch it hard-wires is then a no-op it drops instead of a jump over dead code.
	 */
	if (__builtin_expect(wf_cfg_l2 == WF_L2_RAW_IP, 0)) {
		/* No MAC header: skb->protocol is the only framing information there is. */
		*l3off = 0;
		proto = bpf_ntohs(pk->skb->protocol);
		return (proto == WF_ETH_P_IP || proto == WF_ETH_P_IPV6) ? proto : 0;
	}

	if (!wf_ptr(pk, 0, WF_ETH_HLEN, &p))
		return 0;
	proto = wf_load_be16(p + WF_ETH_PROTO_OFF);
	off = WF_ETH_HLEN;
	/* The common case first: untagged IPv4 skips the tag and PPPoE checks. */
	if (__builtin_expect(proto == WF_ETH_P_IP, 1)) {
		*l3off = off;
		return proto;
	}

#pragma unroll
	for (int i = 0; i < WF_MAX_VLAN_TAGS; i++) {
		if (proto != WF_ETH_P_8021Q && proto != WF_ETH_P_8021AD)
			break;
		if (!wf_ptr(pk, off, WF_VLAN_HLEN, &p))
			return 0;
		proto = wf_load_be16(p + 2);
		off += WF_VLAN_HLEN;
	}

	if (proto == WF_ETH_P_PPP_SES) {
		if (!wf_ptr(pk, off, WF_PPPOE_HLEN + WF_PPP_PROTO_LEN, &p))
			return 0;
		if (p[0] != WF_PPPOE_VER_TYPE || p[1] != WF_PPPOE_CODE_SESSION)
			return 0;
		switch (wf_load_be16(p + WF_PPPOE_HLEN)) {
		case WF_PPP_IP:
			proto = WF_ETH_P_IP;
			break;
		case WF_PPP_IPV6:
			proto = WF_ETH_P_IPV6;
			break;
		default:
			return 0;
		}
		off += WF_PPPOE_HLEN + WF_PPP_PROTO_LEN;
	}

	if (proto != WF_ETH_P_IP && proto != WF_ETH_P_IPV6)
		return 0;
	*l3off = off;
	return proto;
}

/*
 * IPv4 header (fixed 20 bytes linear) in *iph, or 0 when the bytes are not one: wrong
 * version, IHL < 5. Enough to read fields at fixed offsets; whether the packet is as long
 * as its header says is wf_ipv4_len_ok's question, asked only before a write, so packets
 * that already carry the target value (most packets, for most rewrites) skip it.
 */
static __always_inline int wf_ipv4(struct wf_pkt *pk, __u32 l3off, struct iphdr **iph)
{
	__u8 *p;

	if (!wf_ptr(pk, l3off, WF_IPV4_MIN_HLEN, &p))
		return 0;
	if ((p[0] >> 4) != 4 || (p[0] & 0x0f) * 4 < WF_IPV4_MIN_HLEN)
		return 0;
	*iph = (struct iphdr *)p;
	return 1;
}

/*
 * The IPv4 total length `tot` is consistent with the header length `ihl` and the frame:
 * not shorter than the header, not longer than the frame (a truncated packet is left
 * unchanged). tot_len 0 is accepted only on GSO packets (BIG TCP super-packets carry 0).
 */
static __always_inline int wf_ipv4_len_ok(struct wf_pkt *pk, __u32 l3off, __u32 ihl, __u32 tot)
{
	if (tot == 0)
		return pk->skb->gso_size != 0;
	return tot >= ihl && l3off + tot <= pk->skb->len;
}

/* wf_ipv4_len_ok for a header from wf_ipv4. */
static __always_inline int wf_ipv4_hdr_len_ok(struct wf_pkt *pk, __u32 l3off, const struct iphdr *iph)
{
	return wf_ipv4_len_ok(pk, l3off, (((const __u8 *)iph)[0] & 0x0f) * 4, bpf_ntohs(iph->tot_len));
}

/*
 * RFC 1624 eqn. 3 incremental update of a 16-bit one's complement checksum when 16-bit
 * words change: HC' = ~(~HC + ~m + m') for each changed word m -> m', in three steps so
 * that several words of one header cost one read and one write of its checksum
 * (wf_chain's IPv4 rewrites). Words are taken as raw memory (native loads); one's
 * complement sums commute with byte swapping, so this is correct on both little- and
 * big-endian CPUs without conversions. Up to three words: the sum stays below 2^19, which
 * the two folds bring back to 16 bits.
 */
static __always_inline __u32 wf_csum_edit_begin(const __u16 *csum)
{
	return (__u16)~*csum;
}

static __always_inline __u32 wf_csum_edit_word(__u32 sum, __u16 old, __u16 new)
{
	return sum + (__u16)~old + new;
}

static __always_inline void wf_csum_edit_end(__u16 *csum, __u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	*csum = (__u16)~sum;
}

/*
 * An IPv4 header rewrite (set_ip_id_zero, set_ip_ttl) is a pair: `wanted` says whether a
 * header needs it (cheap: fixed-offset reads, no length checks), `apply` writes its word
 * and adds the change to a checksum sum from wf_csum_edit_begin. A stand-alone program
 * runs its pair through wf_ipv4_rewrite; wf_chain runs both pairs on one header, with one
 * length check and one checksum update.
 */
typedef int (*wf_ipv4_wanted_fn)(const struct iphdr *iph);
typedef __u32 (*wf_ipv4_apply_fn)(struct iphdr *iph, __u32 sum);

/* One IPv4 header rewrite on a parsed frame; 1 when bytes changed. */
static __always_inline int wf_ipv4_rewrite(struct wf_pkt *pk, __u32 l3off, wf_ipv4_wanted_fn wanted, wf_ipv4_apply_fn apply)
{
	struct iphdr *iph;

	if (!wf_ipv4(pk, l3off, &iph) || !wanted(iph) || !wf_ipv4_hdr_len_ok(pk, l3off, iph))
		return 0;
	wf_csum_edit_end(&iph->check, apply(iph, wf_csum_edit_begin(&iph->check)));
	return 1;
}

/*
 * bpf_l4_csum_replace for the TCP checksum at l4off (the helper, not wf_csum_edit_*,
 * because only the kernel knows skb->ip_summed: a CHECKSUM_PARTIAL packet's field holds
 * just the pseudo-header sum). The helper may move packet data.
 */
static __always_inline void wf_tcp_csum_replace(struct wf_pkt *pk, __u32 l4off, __u64 from, __u64 to, __u64 flags)
{
	bpf_l4_csum_replace(pk->skb, l4off + WF_TCP_CSUM_OFF, from, to, flags);
	wf_pkt_reload(pk);
}

/* An IPv4 first SYN found by wf_ipv4_first_syn. */
struct wf_syn {
	__u8 *th;      /* TCP header; its fixed 20 bytes are linear */
	__u32 l4off;   /* offset of the TCP header */
	__u32 thl;     /* TCP header length from the data offset field (not yet checked) */
	__u32 ihl;     /* IPv4 header length, 20..60 */
};

/*
 * Finds the TCP header of an IPv4 first SYN (SYN=1, ACK=0) behind a header wf_ipv4 found.
 * 0 when the packet is anything else: not TCP, a non-first fragment (no TCP header in it),
 * a SYN-ACK. Only the cheap tests that reject most packets; whether the headers fit the
 * packet is wf_syn_len_ok's question, asked before a write, so a SYN that already carries
 * the target value skips it. wf_chain passes the header its IPv4 rewrites used.
 */
static __always_inline int wf_ipv4_hdr_first_syn(struct wf_pkt *pk, __u32 l3off, const struct iphdr *iph, struct wf_syn *syn)
{
	__u32 ihl;
	__u8 *th;

	if (iph->protocol != WF_IPPROTO_TCP)
		return 0;
	if (iph->frag_off & bpf_htons(WF_IPV4_FRAG_OFF_MASK))
		return 0;
	ihl = (((const __u8 *)iph)[0] & 0x0f) * 4;
	/* iph is stale from here on: this may pull */
	if (!wf_ptr(pk, l3off + ihl, WF_TCP_MIN_HLEN, &th))
		return 0;
	if ((th[WF_TCP_FLAGS_OFF] & (WF_TCP_FLAG_SYN | WF_TCP_FLAG_ACK)) != WF_TCP_FLAG_SYN)
		return 0;
	syn->th = th;
	syn->l4off = l3off + ihl;
	syn->thl = (th[12] >> 4) * 4;
	syn->ihl = ihl;
	return 1;
}

/* wf_ipv4_hdr_first_syn on a parsed frame, finding the IPv4 header itself. */
static __always_inline int wf_ipv4_first_syn(struct wf_pkt *pk, __u32 l3off, struct wf_syn *syn)
{
	struct iphdr *iph;

	return wf_ipv4(pk, l3off, &iph) && wf_ipv4_hdr_first_syn(pk, l3off, iph, syn);
}

/*
 * The SYN's TCP header is at least 20 bytes, and the IP total length holds both headers and
 * fits in the frame. A SYN is never a GSO packet, so tot_len is meaningful (0 fails here).
 * tot_len is read again here (wf_ipv4_first_syn made it linear) rather than kept from
 * wf_ipv4_first_syn: kept, it would have to survive that function's possible pull on the
 * stack, a spill on every SYN's path.
 */
static __always_inline int wf_syn_len_ok(struct wf_pkt *pk, __u32 l3off, const struct wf_syn *syn)
{
	struct iphdr *iph;
	__u32 tot;

	if (syn->thl < WF_TCP_MIN_HLEN || !wf_ptr_linear(pk, l3off, WF_IPV4_MIN_HLEN, (__u8 **)&iph))
		return 0;
	tot = bpf_ntohs(iph->tot_len);
	return syn->ihl + syn->thl <= tot && wf_ipv4_len_ok(pk, l3off, syn->ihl, tot);
}

/* A rewrite on a parsed frame: (packet, WF_ETH_P_IP or WF_ETH_P_IPV6, L3 offset) -> 1 if changed. */
typedef int (*wf_rewrite_fn)(struct wf_pkt *pk, __u16 proto, __u32 l3off);

/*
 * A first-SYN rewrite (set_tcp_syn_window, clear_tcp_syn_ts) on a SYN wf_ipv4_first_syn
 * found; 1 if changed. wf_chain finds the SYN once for both. syn->th is valid on entry
 * only for the first of them: the other may have moved packet data (checksum helper), so
 * a rewrite that runs second uses syn's offsets, never syn->th (the verifier enforces it).
 */
typedef int (*wf_syn_rewrite_fn)(struct wf_pkt *pk, __u32 l3off, const struct wf_syn *syn);

/* A first-SYN rewrite on a parsed frame, finding the SYN itself (the stand-alone programs). */
static __always_inline int wf_first_syn_rewrite(struct wf_pkt *pk, __u16 proto, __u32 l3off, wf_syn_rewrite_fn rewrite)
{
	struct wf_syn syn;

	return proto == WF_ETH_P_IP && wf_ipv4_first_syn(pk, l3off, &syn) && rewrite(pk, l3off, &syn);
}

#ifndef WF_IN_CHAIN
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
#endif

#endif /* WF_COMMON_H */
