/* SPDX-License-Identifier: GPL-2.0 */
/*
 * set_tcp_syn_window: TCP window -> wf_cfg_syn_window on IPv4 first SYNs (SYN=1, ACK=0).
 * SYN-ACKs, non-first fragments and everything else pass untouched.
 *
 * The TCP checksum is updated with bpf_l4_csum_replace rather than by hand: for
 * CHECKSUM_PARTIAL packets (the router's own connections on offloading devices) the
 * checksum field holds only the pseudo-header sum and must NOT be adjusted for payload
 * changes; the helper knows skb->ip_summed, which a program cannot read.
 */
#ifndef WF_SET_TCP_SYN_WINDOW_H
#define WF_SET_TCP_SYN_WINDOW_H

#include "wf_proto.h"
#include "wf_pkt.h"
#include "wf_csum.h"
#include "wf_syn.h"

volatile const __u16 wf_cfg_syn_window = 65535; /* window in the SYN (unscaled: RFC 7323 §2.2) */

/* The rewrite on a first SYN (wf_syn_rewrite_fn; wf_chain.bpf.c runs it first); 1 when bytes changed. */
static __always_inline int wf_syn_window_rewrite(struct wf_pkt *pk, __u32 l3off, const struct wf_syn *syn)
{
	__u16 *win = (__u16 *)(syn->th + WF_TCP_WINDOW_OFF), old, new = bpf_htons(wf_cfg_syn_window);

	if (*win == new || !wf_syn_len_ok(pk, l3off, syn))
		return 0;
	/*
	 * Read again (from L1) rather than kept from the test above: kept, it would have to sit
	 * in a stack slot through the length checks, a store on every SYN's path.
	 */
	old = *(volatile __u16 *)win;
	*win = new;
	wf_tcp_csum_replace(pk, syn->l4off, old, new, sizeof(new));
	return 1;
}

/* The rewrite on a parsed frame; 1 when bytes changed. */
static __always_inline int wf_set_tcp_syn_window(struct wf_pkt *pk, __u16 proto, __u32 l3off)
{
	return wf_first_syn_rewrite(pk, proto, l3off, wf_syn_window_rewrite);
}

#endif /* WF_SET_TCP_SYN_WINDOW_H */
