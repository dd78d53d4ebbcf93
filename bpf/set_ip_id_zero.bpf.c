// SPDX-License-Identifier: GPL-2.0
/* set_ip_id_zero as its own TC program; the rewrite is in include/wf_set_ip_id_zero.h. */
#include "wf_standalone.h"
#include "wf_set_ip_id_zero.h"

SEC("tc")
int set_ip_id_zero(struct __sk_buff *skb)
{
	return wf_run_one(skb, wf_set_ip_id_zero);
}

char _license[] SEC("license") = "GPL";
