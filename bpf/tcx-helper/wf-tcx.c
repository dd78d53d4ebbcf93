// SPDX-License-Identifier: GPL-2.0
/*
 * wf-tcx: the smallest kernel-facing piece the wrtfleet agent needs beyond tc/bpftool.
 *
 * libbpf 1.1 and bpftool 7.1 (what Debian bookworm and OpenWrt 23.05 ship) predate TCX,
 * so this helper speaks the raw bpf(2) syscall: BPF_LINK_CREATE with attach type
 * BPF_TCX_EGRESS, BPF_OBJ_PIN of the link (an agent restart neither detaches nor
 * duplicates), BPF_LINK_DETACH, BPF_PROG_QUERY. No libbpf, no libc extras: it builds with
 * any (cross) C compiler, e.g. an OpenWrt SDK's musl gcc, and is a few KiB static.
 *
 * Every command prints one JSON object on stdout; exit 0 on success, 1 on failure with
 * {"error": "...", "errno": N} so the agent can report the kernel's reason.
 *
 *   wf-tcx probe                          TCX supported? (PROG_QUERY on lo)
 *   wf-tcx attach IFINDEX PROG_PIN LINK_PIN   create a TCX egress link (appended), pin it
 *   wf-tcx update LINK_PIN PROG_PIN       swap the program of a pinned link in place
 *   wf-tcx detach LINK_PIN                force-detach a pinned link and unpin it
 *   wf-tcx info LINK_PIN                  link id, type, prog id, ifindex
 *   wf-tcx query IFINDEX                  programs and links on IFINDEX's TCX egress
 *   wf-tcx ls DIR                         entries of a bpffs directory
 *   wf-tcx mkdir DIR                      mkdir -p on bpffs (mounting bpffs if needed)
 *   wf-tcx rm PATH                        recursive remove, refused outside /sys/fs/bpf/wrtfleet
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>

/* UAPI values newer than the build host's linux/bpf.h (6.1): include/uapi/linux/bpf.h (6.6+). */
#define WF_BPF_TCX_EGRESS 47       /* enum bpf_attach_type */
#define WF_BPF_LINK_TYPE_TCX 11    /* enum bpf_link_type */
#define WF_BPF_FS_MAGIC 0xcafe4a11 /* statfs f_type of bpffs */
#define WF_BPFFS "/sys/fs/bpf"
#define WF_OWNED_ROOT "/sys/fs/bpf/wrtfleet"
#define WF_MAX_QUERY 64 /* programs per hook we report; far above any real chain */

/* Layouts as in the kernel's union bpf_attr (6.6+); older headers lack the tcx members. */
struct wf_link_create {
	uint32_t prog_fd;
	uint32_t target_ifindex;
	uint32_t attach_type;
	uint32_t flags;
	/* 8-aligned union in the kernel (it holds __aligned_u64 members) */
	uint32_t relative_fd;
	uint32_t pad;
	uint64_t expected_revision;
	uint64_t spare[4];
};

struct wf_prog_query {
	uint32_t target_ifindex;
	uint32_t attach_type;
	uint32_t query_flags;
	uint32_t attach_flags;
	uint64_t prog_ids;
	uint32_t count;
	uint32_t pad;
	uint64_t prog_attach_flags;
	uint64_t link_ids;
	uint64_t link_attach_flags;
	uint64_t revision;
};

struct wf_link_info {
	uint32_t type;
	uint32_t id;
	uint32_t prog_id;
	uint32_t pad;
	union {
		struct {
			uint32_t ifindex;
			uint32_t attach_type;
		} tcx;
		uint64_t spare[8];
	};
};

static long sys_bpf(int cmd, void *attr, unsigned int size)
{
	return syscall(__NR_bpf, cmd, attr, size);
}

static int fail(const char *what)
{
	int e = errno;

	printf("{\"error\":\"%s: %s\",\"errno\":%d}\n", what, strerror(e), e);
	return 1;
}

static int obj_get(const char *path)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(uintptr_t)path;
	return (int)sys_bpf(BPF_OBJ_GET, &a, sizeof(a));
}

static int obj_pin(int fd, const char *path)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(uintptr_t)path;
	a.bpf_fd = (uint32_t)fd;
	return (int)sys_bpf(BPF_OBJ_PIN, &a, sizeof(a));
}

static int link_info(int fd, struct wf_link_info *info)
{
	union bpf_attr a;

	memset(info, 0, sizeof(*info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = sizeof(*info);
	a.info.info = (uint64_t)(uintptr_t)info;
	return (int)sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a));
}

static int ensure_bpffs(void)
{
	struct statfs st;

	if (statfs(WF_BPFFS, &st) == 0 && (uint32_t)st.f_type == WF_BPF_FS_MAGIC)
		return 0;
	/* OpenWrt's procd mounts bpffs; plain Debian/containers may not have it yet. */
	return mount("bpf", WF_BPFFS, "bpf", 0, "mode=0700");
}

static int mkdir_p(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return errno = ENAMETOOLONG, -1;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -1;
	return 0;
}

static int rm_r(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		char child[4096];

		if (!d)
			return -1;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (snprintf(child, sizeof(child), "%s/%s", path, e->d_name) >= (int)sizeof(child)) {
				closedir(d);
				return errno = ENAMETOOLONG, -1;
			}
			if (rm_r(child)) {
				closedir(d);
				return -1;
			}
		}
		closedir(d);
		return rmdir(path);
	}
	return unlink(path);
}

static int cmd_probe(void)
{
	struct wf_prog_query q;

	memset(&q, 0, sizeof(q));
	q.target_ifindex = 1; /* lo exists in every namespace */
	q.attach_type = WF_BPF_TCX_EGRESS;
	if (sys_bpf(BPF_PROG_QUERY, &q, sizeof(q)) < 0)
		return fail("BPF_PROG_QUERY(BPF_TCX_EGRESS)");
	printf("{\"tcx\":true,\"revision\":%llu}\n", (unsigned long long)q.revision);
	return 0;
}

static int cmd_attach(const char *ifindex, const char *prog_pin, const char *link_pin)
{
	struct wf_link_create lc;
	struct wf_link_info info;
	int prog_fd, link_fd;

	prog_fd = obj_get(prog_pin);
	if (prog_fd < 0)
		return fail("BPF_OBJ_GET(prog)");
	memset(&lc, 0, sizeof(lc));
	lc.prog_fd = (uint32_t)prog_fd;
	lc.target_ifindex = (uint32_t)strtoul(ifindex, NULL, 10);
	lc.attach_type = WF_BPF_TCX_EGRESS;
	lc.flags = 0; /* no BPF_F_BEFORE/AFTER: appended after existing programs */
	link_fd = (int)sys_bpf(BPF_LINK_CREATE, &lc, sizeof(lc));
	if (link_fd < 0)
		return fail("BPF_LINK_CREATE(BPF_TCX_EGRESS)");
	/* The link lives as long as an fd or a pin holds it: without the pin it would vanish
	 * when this process exits, which is exactly what makes a crash here leak nothing. */
	if (obj_pin(link_fd, link_pin))
		return fail("BPF_OBJ_PIN(link)");
	if (link_info(link_fd, &info))
		return fail("BPF_OBJ_GET_INFO_BY_FD(link)");
	printf("{\"link_id\":%u,\"prog_id\":%u,\"ifindex\":%u}\n", info.id, info.prog_id, info.tcx.ifindex);
	return 0;
}

static int cmd_update(const char *link_pin, const char *prog_pin)
{
	union bpf_attr a;
	struct wf_link_info info;
	int link_fd = obj_get(link_pin), prog_fd;

	if (link_fd < 0)
		return fail("BPF_OBJ_GET(link)");
	prog_fd = obj_get(prog_pin);
	if (prog_fd < 0)
		return fail("BPF_OBJ_GET(prog)");
	memset(&a, 0, sizeof(a));
	a.link_update.link_fd = (uint32_t)link_fd;
	a.link_update.new_prog_fd = (uint32_t)prog_fd;
	if (sys_bpf(BPF_LINK_UPDATE, &a, sizeof(a)) < 0)
		return fail("BPF_LINK_UPDATE");
	if (link_info(link_fd, &info))
		return fail("BPF_OBJ_GET_INFO_BY_FD(link)");
	printf("{\"link_id\":%u,\"prog_id\":%u,\"ifindex\":%u}\n", info.id, info.prog_id, info.tcx.ifindex);
	return 0;
}

static int cmd_detach(const char *link_pin)
{
	union bpf_attr a;
	int link_fd = obj_get(link_pin);

	if (link_fd < 0) {
		if (errno == ENOENT)
			return printf("{\"detached\":false}\n"), 0;
		return fail("BPF_OBJ_GET(link)");
	}
	memset(&a, 0, sizeof(a));
	a.link_detach.link_fd = (uint32_t)link_fd;
	/* Detach even if another process still holds an fd: the pin is ours, so is the hook. */
	if (sys_bpf(BPF_LINK_DETACH, &a, sizeof(a)) < 0 && errno != ENOLINK)
		return fail("BPF_LINK_DETACH");
	if (unlink(link_pin))
		return fail("unlink(link pin)");
	printf("{\"detached\":true}\n");
	return 0;
}

static int cmd_info(const char *link_pin)
{
	struct wf_link_info info;
	int fd = obj_get(link_pin);

	if (fd < 0)
		return fail("BPF_OBJ_GET(link)");
	if (link_info(fd, &info))
		return fail("BPF_OBJ_GET_INFO_BY_FD(link)");
	/* A link whose device vanished reports ifindex 0 ("defunct"). */
	printf("{\"link_id\":%u,\"type\":%u,\"tcx\":%s,\"prog_id\":%u,\"ifindex\":%u,\"attach_type\":%u}\n", info.id,
	       info.type, info.type == WF_BPF_LINK_TYPE_TCX ? "true" : "false", info.prog_id, info.tcx.ifindex,
	       info.tcx.attach_type);
	return 0;
}

static int cmd_query(const char *ifindex)
{
	struct wf_prog_query q;
	uint32_t progs[WF_MAX_QUERY], links[WF_MAX_QUERY];

	memset(&q, 0, sizeof(q));
	memset(progs, 0, sizeof(progs));
	memset(links, 0, sizeof(links));
	q.target_ifindex = (uint32_t)strtoul(ifindex, NULL, 10);
	q.attach_type = WF_BPF_TCX_EGRESS;
	q.prog_ids = (uint64_t)(uintptr_t)progs;
	q.link_ids = (uint64_t)(uintptr_t)links;
	q.count = WF_MAX_QUERY;
	if (sys_bpf(BPF_PROG_QUERY, &q, sizeof(q)) < 0)
		return fail("BPF_PROG_QUERY(BPF_TCX_EGRESS)");
	printf("{\"revision\":%llu,\"programs\":[", (unsigned long long)q.revision);
	for (uint32_t i = 0; i < q.count && i < WF_MAX_QUERY; i++)
		printf("%s{\"prog_id\":%u,\"link_id\":%u}", i ? "," : "", progs[i], links[i]);
	printf("]}\n");
	return 0;
}

static int cmd_ls(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int first = 1;

	if (!d) {
		if (errno == ENOENT)
			return printf("{\"entries\":[]}\n"), 0;
		return fail("opendir");
	}
	printf("{\"entries\":[");
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		/* names are ours (ifnames, program names): no JSON escaping needed beyond this */
		if (strpbrk(e->d_name, "\"\\"))
			continue;
		printf("%s{\"name\":\"%s\",\"dir\":%s}", first ? "" : ",", e->d_name,
		       e->d_type == DT_DIR ? "true" : "false");
		first = 0;
	}
	closedir(d);
	printf("]}\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "probe") && argc == 2)
		return cmd_probe();
	if (!strcmp(cmd, "attach") && argc == 5)
		return cmd_attach(argv[2], argv[3], argv[4]);
	if (!strcmp(cmd, "update") && argc == 4)
		return cmd_update(argv[2], argv[3]);
	if (!strcmp(cmd, "detach") && argc == 3)
		return cmd_detach(argv[2]);
	if (!strcmp(cmd, "info") && argc == 3)
		return cmd_info(argv[2]);
	if (!strcmp(cmd, "query") && argc == 3)
		return cmd_query(argv[2]);
	if (!strcmp(cmd, "ls") && argc == 3)
		return cmd_ls(argv[2]);
	if (!strcmp(cmd, "mkdir") && argc == 3) {
		if (ensure_bpffs())
			return fail("mount bpffs");
		if (mkdir_p(argv[2]))
			return fail("mkdir");
		return printf("{\"ok\":true}\n"), 0;
	}
	if (!strcmp(cmd, "rm") && argc == 3) {
		size_t n = strlen(WF_OWNED_ROOT);

		if (strncmp(argv[2], WF_OWNED_ROOT, n) || (argv[2][n] && argv[2][n] != '/') || strstr(argv[2], "..")) {
			errno = EPERM;
			return fail("rm outside " WF_OWNED_ROOT);
		}
		if (rm_r(argv[2]))
			return fail("rm");
		return printf("{\"ok\":true}\n"), 0;
	}
	fprintf(stderr,
	        "usage: wf-tcx probe|attach IFINDEX PROG LINK|update LINK PROG|detach LINK|info LINK|query IFINDEX|ls DIR|mkdir DIR|rm PATH\n");
	return 2;
}
