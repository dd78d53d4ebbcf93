// SPDX-License-Identifier: GPL-2.0
/* clear_tcp_syn_ts as its own TC program; the rewrite is in include/wf_clear_tcp_syn_ts.h. */
#include "wf_standalone.h"
#include "wf_clear_tcp_syn_ts.h"

SEC("tc")
int clear_tcp_syn_ts(struct __sk_buff *skb)
{
	return wf_run_one(skb, wf_clear_tcp_syn_ts);
}

char _license[] SEC("license") = "GPL";
