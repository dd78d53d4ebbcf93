/* SPDX-License-Identifier: GPL-2.0 */
/* Checksum updates after a rewrite: by hand for the IPv4 header, by helper for TCP. */
#ifndef WF_CSUM_H
#define WF_CSUM_H

#include "wf_proto.h"
#include "wf_pkt.h"

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
	return (__u16) ~*csum;
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

/* One's complement addition of two 32-bit partial sums. */
static __always_inline __u32 wf_csum_add32(__u32 a, __u32 b)
{
	__u32 r = a + b;

	return r + (r < a); /* end-around carry */
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

#endif /* WF_CSUM_H */
