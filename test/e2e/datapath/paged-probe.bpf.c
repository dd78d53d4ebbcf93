// SPDX-License-Identifier: GPL-2.0
/*
 * Test probe for the paged-header test (ebpf-e2e.test.ts): attached as a cls_bpf filter
 * that runs before ours, it counts the egress frames whose IPv4 header is not in the
 * linear area, i.e. the frames on which our programs must pull. It only reads skb fields,
 * never packet data, so it cannot change what our programs then see.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define ETH_HLEN 14
#define IPV4_MIN_HLEN 20

struct paged_counts {
	__u64 frames;
	__u64 paged; /* the linear area ends before the end of the IPv4 header */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct paged_counts);
} paged_counts SEC(".maps");

SEC("tc")
int paged_probe(struct __sk_buff *skb)
{
	__u32 zero = 0;
	struct paged_counts *c = bpf_map_lookup_elem(&paged_counts, &zero);
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;

	if (!c)
		return -1;
	__sync_fetch_and_add(&c->frames, 1);
	if (data + ETH_HLEN + IPV4_MIN_HLEN > data_end && skb->len >= ETH_HLEN + IPV4_MIN_HLEN)
		__sync_fetch_and_add(&c->paged, 1);
	return -1; /* TC_ACT_UNSPEC: on to the next filter (ours) */
}

char _license[] SEC("license") = "GPL";
