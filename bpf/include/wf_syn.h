/* SPDX-License-Identifier: GPL-2.0 */
/* Finding an IPv4 first SYN (SYN=1, ACK=0), the packet both TCP rewrites act on. */
#ifndef WF_SYN_H
#define WF_SYN_H

#include "wf_proto.h"
#include "wf_pkt.h"
#include "wf_ipv4.h"

/* An IPv4 first SYN found by wf_ipv4_first_syn. */
struct wf_syn {
	__u8 *th;    /* TCP header; its fixed 20 bytes are linear */
	__u32 l4off; /* offset of the TCP header */
	__u32 thl;   /* TCP header length from the data offset field (not yet checked) */
	__u32 ihl;   /* IPv4 header length, 20..60 */
};

/*
 * Finds the TCP header of an IPv4 first SYN (SYN=1, ACK=0) behind a header wf_ipv4 found.
 * 0 when the packet is anything else: not TCP, a non-first fragment (no TCP header in it),
 * a SYN-ACK. Only the cheap tests that reject most packets; whether the headers fit the
 * packet is wf_syn_len_ok's question, asked before a write, so a SYN that already carries
 * the target value skips it. wf_chain passes the header its IPv4 rewrites used.
 */
static __always_inline int wf_ipv4_hdr_first_syn(struct wf_pkt *pk, __u32 l3off, const struct iphdr *iph,
                                                 struct wf_syn *syn)
{
	__u32 ihl;
	__u8 *th;

	if (iph->protocol != WF_IPPROTO_TCP)
		return 0;
	if (iph->frag_off & bpf_htons(WF_IPV4_FRAG_OFF_MASK))
		return 0;
	ihl = wf_ipv4_hlen(iph);
	/* iph is stale from here on: this may pull */
	if (!wf_ptr(pk, l3off + ihl, WF_TCP_MIN_HLEN, &th))
		return 0;
	if ((th[WF_TCP_FLAGS_OFF] & (WF_TCP_FLAG_SYN | WF_TCP_FLAG_ACK)) != WF_TCP_FLAG_SYN)
		return 0;
	syn->th = th;
	syn->l4off = l3off + ihl;
	syn->thl = (th[WF_TCP_DOFF_OFF] >> WF_TCP_DOFF_SHIFT) * WF_HLEN_UNIT;
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

#endif /* WF_SYN_H */
