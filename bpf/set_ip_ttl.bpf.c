// SPDX-License-Identifier: GPL-2.0
/*
 * set_ip_ttl: IPv4 TTL -> wf_cfg_ttl on every IPv4 packet; optionally IPv6 hop limit too.
 * Neither field is part of the TCP/UDP pseudo-header, so only the IPv4 header checksum
 * changes (IPv6 has none), and CHECKSUM_PARTIAL packets need no special care.
 */
#include "wf_common.h"

/* Load-time configuration (.rodata, patched by the loader before the object is loaded). */
volatile const __u8 wf_cfg_ttl = 64;             /* 1..255; 64 = Linux/Android/iOS default */
volatile const __u8 wf_cfg_ipv6_hop_limit = 0;   /* 1 = also rewrite IPv6 hop limit to wf_cfg_ttl */

#define WF_IPV4_TTL_WORD_OFF 8   /* TTL shares a 16-bit checksum word with the protocol byte */
#define WF_IPV6_HOP_LIMIT_OFF 7

SEC("tc")
int set_ip_ttl(struct __sk_buff *skb)
{
	struct wf_counters *c = wf_counters_get();
	__u32 l3off = 0;
	__u16 proto;

	if (c)
		c->seen++;
	proto = wf_parse_l2(skb, &l3off);
	if (proto == WF_ETH_P_IP) {
		struct iphdr *iph = wf_ipv4(skb, l3off);
		__u16 *word, old;

		if (!iph || iph->ttl == wf_cfg_ttl)
			return WF_CONTINUE;
		word = (__u16 *)((__u8 *)iph + WF_IPV4_TTL_WORD_OFF);
		old = *word;
		iph->ttl = wf_cfg_ttl;
		wf_csum_replace2(&iph->check, old, *word);
		if (c)
			c->rewritten++;
	} else if (proto == WF_ETH_P_IPV6 && wf_cfg_ipv6_hop_limit) {
		__u8 *ip6 = wf_ptr(skb, l3off, WF_IPV6_HOP_LIMIT_OFF + 1);

		if (!ip6 || (ip6[0] >> 4) != 6 || ip6[WF_IPV6_HOP_LIMIT_OFF] == wf_cfg_ttl)
			return WF_CONTINUE;
		/* A header cut before the addresses is garbage, not IPv6: leave it alone. */
		if (l3off + WF_IPV6_HLEN > skb->len)
			return WF_CONTINUE;
		ip6[WF_IPV6_HOP_LIMIT_OFF] = wf_cfg_ttl;
		if (c)
			c->rewritten++;
	}
	return WF_CONTINUE;
}

char _license[] SEC("license") = "GPL";
