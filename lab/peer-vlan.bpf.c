// SPDX-License-Identifier: GPL-2.0
/*
 * The WAN peer's end of the guest's VLAN 100, for hosts whose kernel has no 8021q (the lab's
 * CI host has none, nor act_vlan nor bridge VLAN filtering): two tc programs join the peer's
 * trunk (eth0, tagged frames) and an access veth (eth0.100 <-> vlan100-tag, untagged).
 *   untag, on eth0 ingress: VLAN_ID frames lose their tag and go out of vlan100-tag, so
 *          they arrive on eth0.100 (the kernel moved the tag into skb metadata before tc).
 *   tag,   on vlan100-tag ingress (what eth0.100 sends): tagged, and sent out of eth0.
 * lab/topology.ts compiles it with -DPROGRAM_UNTAG or -DPROGRAM_TAG and the two ifindexes.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifndef VLAN_ID
#define VLAN_ID 100
#endif

#ifdef PROGRAM_UNTAG
SEC("tc")
int untag(struct __sk_buff *skb)
{
	if (!skb->vlan_present || (skb->vlan_tci & 0x0fff) != VLAN_ID)
		return TC_ACT_OK;
	if (bpf_skb_vlan_pop(skb))
		return TC_ACT_SHOT;
	return bpf_redirect(ACCESS_IFINDEX, 0);
}
#endif

#ifdef PROGRAM_TAG
SEC("tc")
int tag(struct __sk_buff *skb)
{
	if (bpf_skb_vlan_push(skb, bpf_htons(ETH_P_8021Q), VLAN_ID))
		return TC_ACT_SHOT;
	return bpf_redirect(TRUNK_IFINDEX, 0);
}
#endif

char LICENSE[] SEC("license") = "GPL";
