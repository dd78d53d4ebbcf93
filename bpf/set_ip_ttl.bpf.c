// SPDX-License-Identifier: GPL-2.0
/* set_ip_ttl as its own TC program; the rewrite is in include/wf_set_ip_ttl.h. */
#include "wf_standalone.h"
#include "wf_set_ip_ttl.h"

SEC("tc")
int set_ip_ttl(struct __sk_buff *skb)
{
	return wf_run_one(skb, wf_set_ip_ttl);
}

char _license[] SEC("license") = "GPL";
