// SPDX-License-Identifier: GPL-2.0
/* set_tcp_syn_window as its own TC program; the rewrite is in include/wf_set_tcp_syn_window.h. */
#include "wf_standalone.h"
#include "wf_set_tcp_syn_window.h"

SEC("tc")
int set_tcp_syn_window(struct __sk_buff *skb)
{
	return wf_run_one(skb, wf_set_tcp_syn_window);
}

char _license[] SEC("license") = "GPL";
