/* SPDX-License-Identifier: GPL-2.0 */
/*
 * set_ip_ttl: IPv4 TTL -> wf_cfg_ttl on every IPv4 packet; optionally IPv6 hop limit too.
 * Neither field is part of the TCP/UDP pseudo-header, so only the IPv4 header checksum
 * changes (IPv6 has none), and CHECKSUM_PARTIAL packets need no special care.
 */
#ifndef WF_SET_IP_TTL_H
#define WF_SET_IP_TTL_H

#include "wf_proto.h"
#include "wf_pkt.h"
#include "wf_csum.h"
#include "wf_ipv4.h"

/* Load-time configuration (.rodata, patched by the loader before the object is loaded). */
volatile const __u8 wf_cfg_ttl = 64;           /* 1..255; 64 = Linux/Android/iOS default */
volatile const __u8 wf_cfg_ipv6_hop_limit = 0; /* 1 = also rewrite IPv6 hop limit to wf_cfg_ttl */

/* The IPv4 rewrite as a wanted/apply pair (see wf_ipv4_rewrite; wf_chain.bpf.c runs it with set_ip_id_zero's). */
static __always_inline int wf_ip_ttl_wanted(const struct iphdr *iph)
{
	return iph->ttl != wf_cfg_ttl;
}

static __always_inline __u32 wf_ip_ttl_apply(struct iphdr *iph, __u32 sum)
{
	__u16 *word = (__u16 *)((__u8 *)iph + WF_IPV4_TTL_WORD_OFF), old = *word, new = old;

	/*
	 * The new word is built in a register and stored whole: storing the TTL byte and then
	 * loading the word for the checksum would read across a narrower pending store, which
	 * x86 cannot forward from its store buffer.
	 */
	((__u8 *)&new)[WF_IPV4_TTL_OFF - WF_IPV4_TTL_WORD_OFF] = wf_cfg_ttl; /* in memory order */
	*word = new;
	return wf_csum_edit_word(sum, old, new);
}

/*
 * The IPv6 rewrite, when switched on: no header checksum to update. 1 when bytes changed.
 * Hop limits 1 and 255 are left alone, as the iptables fallback's `--hl-gt 1 --hl-lt 255`:
 * neighbour discovery sent with any other than 255 is dropped by its receiver (IPv6 on the
 * WAN stops), and MLD must not leave the link.
 */
static __always_inline int wf_set_ipv6_hop_limit(struct wf_pkt *pk, __u32 l3off)
{
	__u8 *ip6, hop_limit;

	if (!wf_cfg_ipv6_hop_limit || !wf_ptr(pk, l3off, WF_IPV6_HOP_LIMIT_OFF + 1, &ip6))
		return 0;
	hop_limit = ip6[WF_IPV6_HOP_LIMIT_OFF];
	if ((ip6[0] >> WF_IP_VERSION_SHIFT) != WF_IPV6_VERSION || hop_limit == wf_cfg_ttl ||
	    hop_limit <= WF_IPV6_HOP_LIMIT_LINK || hop_limit == WF_IPV6_HOP_LIMIT_ND)
		return 0;
	/* A header cut before the addresses is garbage, not IPv6: leave it alone. */
	if (l3off + WF_IPV6_HLEN > pk->skb->len)
		return 0;
	ip6[WF_IPV6_HOP_LIMIT_OFF] = wf_cfg_ttl;
	return 1;
}

/* The rewrite on a parsed frame; 1 when bytes changed. */
static __always_inline int wf_set_ip_ttl(struct wf_pkt *pk, __u16 proto, __u32 l3off)
{
	if (proto == WF_ETH_P_IP)
		return wf_ipv4_rewrite(pk, l3off, wf_ip_ttl_wanted, wf_ip_ttl_apply);
	return proto == WF_ETH_P_IPV6 && wf_set_ipv6_hop_limit(pk, l3off);
}

#endif /* WF_SET_IP_TTL_H */
