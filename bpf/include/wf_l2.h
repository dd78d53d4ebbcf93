/* SPDX-License-Identifier: GPL-2.0 */
/* Link-layer parsing: Ethernet, up to two VLAN tags, PPPoE sessions, or no MAC header at all. */
#ifndef WF_L2_H
#define WF_L2_H

#include "wf_proto.h"
#include "wf_pkt.h"

/* L2 framing of the device the program is attached to; set per interface by the loader. */
#define WF_L2_ETHERNET 0 /* frames start with an Ethernet header (veth, eth, VLAN devs) */
#define WF_L2_RAW_IP 1   /* PPP (pppoe-wan, ppp0), tun: skb data starts at the IP header */

#define WF_MAX_VLAN_TAGS 2 /* QinQ: an 802.1ad tag over an 802.1Q tag */

/*
 * Link-level framing of the attached device. .rodata: the loader patches the value in
 * the object file per interface before loading, so the verifier sees a constant and
 * drops the branch that does not apply.
 */
volatile const __u8 wf_cfg_l2 = WF_L2_ETHERNET;

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
		proto = wf_load_be16(p + WF_VLAN_PROTO_OFF);
		off += WF_VLAN_HLEN;
	}

	if (proto == WF_ETH_P_PPP_SES) {
		if (!wf_ptr(pk, off, WF_PPPOE_HLEN + WF_PPP_PROTO_LEN, &p))
			return 0;
		if (p[WF_PPPOE_VER_TYPE_OFF] != WF_PPPOE_VER_TYPE || p[WF_PPPOE_CODE_OFF] != WF_PPPOE_CODE_SESSION)
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

#endif /* WF_L2_H */
