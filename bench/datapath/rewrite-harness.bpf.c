// SPDX-License-Identifier: GPL-2.0
/*
 * Rewrite-path harness. `bpftool prog run ... repeat N` re-runs a program on the same skb, so
 * only its first run rewrites; every later run measures a packet that already carries the
 * target values. On a router most packets do need the rewrite (forwarding decrements the
 * TTL, senders number their IDs), so the bench also measures that path:
 *
 *   wf_harness_dirty: writes the original header bytes back (wf_harness_template), then
 *   tail-calls the program under test (wf_harness_next[0]).
 *
 * Every run of the program under test then sees the untouched frame and rewrites it. The
 * cost of the rewrite path is (dirty + program) - (dirty + empty program): the restore and
 * the tail call are the same in both.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* What the harness returns when it did not reach the program under test (no TC verdict uses it). */
#define WF_HARNESS_TAIL_CALL_FAILED 99

/* Bytes restored from the start of the frame: enough for L2, IPv4 and TCP headers with options. */
#define WF_HARNESS_MAX_BYTES 128

struct wf_harness_template {
	__u32 len; /* 1..WF_HARNESS_MAX_BYTES, set by the bench with `bpftool map update` */
	__u8 bytes[WF_HARNESS_MAX_BYTES];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wf_harness_template);
} wf_harness_template SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} wf_harness_next SEC(".maps");

SEC("tc")
int wf_harness_dirty(struct __sk_buff *skb)
{
	__u32 zero = 0, len;
	struct wf_harness_template *t = bpf_map_lookup_elem(&wf_harness_template, &zero);

	if (!t)
		return WF_HARNESS_TAIL_CALL_FAILED;
	len = t->len;
	if (len < 1 || len > WF_HARNESS_MAX_BYTES)
		return WF_HARNESS_TAIL_CALL_FAILED;
	/*
	 * The same len, as a mask the verifier can bound: the 6.1 kernels of the lab's MIPS guests
	 * learn no lower bound from the check above and refuse a store whose size may be 0.
	 * WF_HARNESS_MAX_BYTES is a power of two.
	 */
	bpf_skb_store_bytes(skb, 0, t->bytes, ((len - 1) & (WF_HARNESS_MAX_BYTES - 1)) + 1, 0);
	bpf_tail_call(skb, &wf_harness_next, 0);
	return WF_HARNESS_TAIL_CALL_FAILED;
}

char _license[] SEC("license") = "GPL";
