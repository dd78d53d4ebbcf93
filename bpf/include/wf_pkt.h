/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet access for the TC egress programs. The rules every access follows:
 *
 *  - Never read past data_end; a frame shorter than the header we need (compared
 *    with skb->len, not just the linear area) is left unchanged.
 *  - Headers that sit outside the linear area (possible for forwarded/GRO packets)
 *    are pulled with bpf_skb_pull_data only when needed and only as far as needed,
 *    so the fast path on ordinary packets never copies payload.
 *  - Packet accesses at variable offsets are 1 or 2 bytes wide and 2-byte aligned
 *    relative to the TCP/IP header start, so the programs also pass the verifier on
 *    strict-alignment CPUs (MIPS routers, where NET_IP_ALIGN is 2).
 */
#ifndef WF_PKT_H
#define WF_PKT_H

#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/*
 * Upper bound for every header offset we compute: 2 VLAN tags + PPPoE + max IPv4 header
 * + max TCP header is 14 + 8 + 8 + 60 + 60 = 150. The verifier needs a known maximum
 * for variable packet offsets; anything beyond is garbage by construction.
 */
#define WF_MAX_HDR_OFF 256

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

#endif /* WF_PKT_H */
