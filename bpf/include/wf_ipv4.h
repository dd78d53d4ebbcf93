/* SPDX-License-Identifier: GPL-2.0 */
/* The IPv4 header: finding it, checking its lengths, and rewriting its fields. */
#ifndef WF_IPV4_H
#define WF_IPV4_H

#include <linux/ip.h>
#include "wf_proto.h"
#include "wf_pkt.h"
#include "wf_csum.h"

/* The header length the IHL field gives, in bytes (0..60; not yet checked). */
static __always_inline __u32 wf_ipv4_hlen(const void *iph)
{
	return (((const __u8 *)iph)[0] & WF_IPV4_IHL_MASK) * WF_HLEN_UNIT;
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
	if ((p[0] >> WF_IP_VERSION_SHIFT) != WF_IPV4_VERSION || wf_ipv4_hlen(p) < WF_IPV4_MIN_HLEN)
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
	return wf_ipv4_len_ok(pk, l3off, wf_ipv4_hlen(iph), bpf_ntohs(iph->tot_len));
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
static __always_inline int wf_ipv4_rewrite(struct wf_pkt *pk, __u32 l3off, wf_ipv4_wanted_fn wanted,
                                           wf_ipv4_apply_fn apply)
{
	struct iphdr *iph;

	if (!wf_ipv4(pk, l3off, &iph) || !wanted(iph) || !wf_ipv4_hdr_len_ok(pk, l3off, iph))
		return 0;
	wf_csum_edit_end(&iph->check, apply(iph, wf_csum_edit_begin(&iph->check)));
	return 1;
}

#endif /* WF_IPV4_H */
