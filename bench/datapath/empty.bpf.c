// SPDX-License-Identifier: GPL-2.0
/* Harness floor: what `bpftool prog run ... repeat N` reports for a program that does nothing. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("tc")
int wf_empty(struct __sk_buff *skb)
{
	return -1;
}

char _license[] SEC("license") = "GPL";
