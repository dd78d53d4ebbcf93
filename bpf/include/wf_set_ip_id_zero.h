/* SPDX-License-Identifier: GPL-2.0 */
/*
 * set_ip_id_zero: IPv4 Identification -> 0 on every IPv4 packet, fragments included
 * (docs/DOMAIN.md, The four rewrites). Zeroing IDs of fragments is what the reference does;
 * it is safe as long as one host does not have two fragmented datagrams to the same peer in
 * flight, which is why DF traffic (all TCP from modern stacks) is the real target.
 *
 * Segmentation offload: on a GSO super-packet only the super-packet's ID is ours to set;
 * the software GSO path (or the NIC) numbers the later segments ID+1, ID+2, ... after TC
 * egress. The loader makes the promise "ID 0 on the wire" true by making the attached
 * device hand TC single segments (see agent/datapath/loader.ts, ipIdSegmentation).
 */
#ifndef WF_SET_IP_ID_ZERO_H
#define WF_SET_IP_ID_ZERO_H

#include "wf_proto.h"
#include "wf_pkt.h"
#include "wf_csum.h"
#include "wf_ipv4.h"

/* The rewrite as a wanted/apply pair (see wf_ipv4_rewrite; wf_chain.bpf.c runs it with set_ip_ttl's). */
static __always_inline int wf_ip_id_zero_wanted(const struct iphdr *iph)
{
	return iph->id != 0;
}

static __always_inline __u32 wf_ip_id_zero_apply(struct iphdr *iph, __u32 sum)
{
	sum = wf_csum_edit_word(sum, iph->id, 0);
	iph->id = 0;
	return sum;
}

/* The rewrite on a parsed frame; 1 when bytes changed. */
static __always_inline int wf_set_ip_id_zero(struct wf_pkt *pk, __u16 proto, __u32 l3off)
{
	return proto == WF_ETH_P_IP && wf_ipv4_rewrite(pk, l3off, wf_ip_id_zero_wanted, wf_ip_id_zero_apply);
}

#endif /* WF_SET_IP_ID_ZERO_H */
