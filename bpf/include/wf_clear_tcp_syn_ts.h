/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clear_tcp_syn_ts: on IPv4 first SYNs, every Timestamp option (kind 8, len 10) is
 * overwritten with 10 NOPs. The header length stays the same, so no byte moves and
 * the IP header is untouched; only the TCP checksum changes.
 *
 * Odd offsets: with options NOP, MSS, TS the option starts at byte 25 of the TCP header,
 * so its 10 bytes straddle six 16-bit checksum words. Instead of reading and rewriting
 * words (unaligned word loads, extra bounds), the checksum delta is computed from bytes:
 * in a one's complement sum a byte at an even offset of the TCP header is the high half
 * of its word, a byte at an odd offset the low half. The new bytes are all 0x01, so the
 * new contribution of one cleared option is always five 0x0101 words = 0x0505 whatever
 * the parity; the old contribution is (bytes at high positions) * 256 + (bytes at low
 * positions) in network order, converted to the CPU's native word order because the
 * kernel's checksum helpers sum raw memory words.
 *
 * Walk: one step per byte position p of the option area (written out 40 times, so
 * p and its parity are compile-time constants and every packet access is at a constant
 * offset from the option area); "next" says where the next option starts. That keeps the
 * verifier's work linear (next is never used as a pointer offset, so states prune) and the
 * odd/even handling branch-free.
 * Malformed lists: parsing stops at the first option with length < 2 or running past the
 * header, exactly like Linux's tcp_parse_options, which still honours the options before
 * that point. So Timestamps before the damage are cleared (the peer would use them), and
 * a list that is garbage from the start is left unchanged.
 */
#ifndef WF_CLEAR_TCP_SYN_TS_H
#define WF_CLEAR_TCP_SYN_TS_H

#include "wf_proto.h"
#include "wf_pkt.h"
#include "wf_csum.h"
#include "wf_syn.h"

/* New contribution of one cleared option: 10 bytes of NOP (0x01) = five words 0x0101. */
#define WF_TS_NOP_WORDS_SUM ((WF_TCPOLEN_TIMESTAMP / 2) * ((WF_TCPOPT_NOP << 8) | WF_TCPOPT_NOP))

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* native u16 of bytes {a, b} at increasing addresses = a + 256*b */
#define WF_NET_HI_SHIFT 0
#define WF_NET_LO_SHIFT 8
#else
#define WF_NET_HI_SHIFT 8
#define WF_NET_LO_SHIFT 0
#endif

struct wf_ts_walk {
	__u8 *opt; /* first option byte */
	__u8 *data_end;
	__u32 optlen;  /* option bytes in the header (1..40) */
	__u32 next;    /* where the next option starts */
	__u32 old_sum; /* native-order checksum contribution of the cleared bytes */
	__u32 new_sum;
};

/*
 * One byte position p of the option area; p is a literal at every call site, so the
 * compiler folds p, its parity and all offsets. Returns 1 to stop walking.
 */
static __always_inline int wf_ts_step(struct wf_ts_walk *w, const __u32 p)
{
	__u8 *opt = w->opt, kind, len;

	if (p >= w->optlen)
		return 1;
	if (p != w->next)
		return 0; /* inside the previous option */
	if (opt + p + WF_TCPOLEN_MIN > w->data_end) {
		/* only a one-byte option (EOL/NOP) can sit in the last byte */
		if (opt + p + WF_TCPOLEN_SINGLE > w->data_end)
			return 1;
	}
	kind = opt[p];
	if (kind == WF_TCPOPT_EOL)
		return 1;
	if (kind == WF_TCPOPT_NOP) {
		w->next = p + WF_TCPOLEN_SINGLE;
		return 0;
	}
	if (opt + p + WF_TCPOLEN_MIN > w->data_end)
		return 1;
	len = opt[p + WF_TCPOPT_LEN_OFF];
	if (len < WF_TCPOLEN_MIN || p + len > w->optlen)
		return 1;
	if (p <= WF_TCP_MAX_OPT_LEN - WF_TCPOLEN_TIMESTAMP && kind == WF_TCPOPT_TIMESTAMP &&
	    len == WF_TCPOLEN_TIMESTAMP) {
		__u32 even = 0, odd = 0;

		if (opt + p + WF_TCPOLEN_TIMESTAMP > w->data_end)
			return 1;
#pragma unroll
		for (__u32 j = 0; j < WF_TCPOLEN_TIMESTAMP; j += 2) {
			even += opt[p + j];
			odd += opt[p + j + 1];
			opt[p + j] = WF_TCPOPT_NOP;
			opt[p + j + 1] = WF_TCPOPT_NOP;
		}
		/* Options begin at TCP byte 20 (even): the option's parity is p's parity. */
		if (p & 1)
			w->old_sum += (even << WF_NET_LO_SHIFT) + (odd << WF_NET_HI_SHIFT);
		else
			w->old_sum += (even << WF_NET_HI_SHIFT) + (odd << WF_NET_LO_SHIFT);
		w->new_sum += WF_TS_NOP_WORDS_SUM;
	}
	w->next = p + len;
	return 0;
}

/* The walk's steps from p on, written out (see the walk above); clang-format would spread each over many lines. */
/* clang-format off */
#define WF_TS_STEP(p) if (wf_ts_step(&w, p)) goto walked
#define WF_TS_STEP4(p) WF_TS_STEP(p); WF_TS_STEP(p + 1); WF_TS_STEP(p + 2); WF_TS_STEP(p + 3)
#define WF_TS_STEP20(p) WF_TS_STEP4(p); WF_TS_STEP4(p + 4); WF_TS_STEP4(p + 8); WF_TS_STEP4(p + 12); WF_TS_STEP4(p + 16)
/* clang-format on */

/*
 * The rewrite on a first SYN (wf_syn_rewrite_fn); 1 when bytes changed. It uses syn's
 * offsets only, never syn->th: wf_chain.bpf.c runs it after set_tcp_syn_window, whose
 * checksum helper may have moved packet data.
 */
static __always_inline int wf_syn_ts_rewrite(struct wf_pkt *pk, __u32 l3off, const struct wf_syn *syn)
{
	struct wf_ts_walk w = {};

	if (syn->thl <= WF_TCP_MIN_HLEN || !wf_syn_len_ok(pk, l3off, syn))
		return 0;
	if (syn->l4off > WF_MAX_HDR_OFF - WF_TCP_MAX_HLEN || syn->thl > WF_TCP_MAX_HLEN)
		return 0;
	if (!wf_linear(pk, syn->l4off + syn->thl))
		return 0;

	/* Derived from the offset: wf_linear may have pulled. */
	w.data_end = pk->end;
	w.opt = pk->data + syn->l4off + WF_TCP_MIN_HLEN;
	asm volatile("" : "+r"(w.opt)); /* one register, so range checks on opt+k cover all loads */
	w.optlen = syn->thl - WF_TCP_MIN_HLEN;

	/*
	 * 40 = WF_TCP_MAX_OPT_LEN positions, written out rather than a loop: p must be a constant
	 * at each step, and clang does not fully unroll a loop over wf_ts_step.
	 */
	WF_TS_STEP20(0);
	WF_TS_STEP20(20);
walked:
	if (!w.new_sum)
		return 0;

	/* size 0: "to" is a checksum diff (new - old); the helper handles CHECKSUM_PARTIAL. */
	wf_tcp_csum_replace(pk, syn->l4off, 0, wf_csum_add32(w.new_sum, ~w.old_sum), 0);
	return 1;
}

/* The rewrite on a parsed frame; 1 when bytes changed. */
static __always_inline int wf_clear_tcp_syn_ts(struct wf_pkt *pk, __u16 proto, __u32 l3off)
{
	return wf_first_syn_rewrite(pk, proto, l3off, wf_syn_ts_rewrite);
}

#endif /* WF_CLEAR_TCP_SYN_TS_H */
