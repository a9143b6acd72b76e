// SPDX-License-Identifier: GPL-2.0
/*
 * Load a BPF object built from bench/NAME.bpf.c and attach its program at
 * the tcx ingress or egress hook of a device, with libbpf (Debian's
 * libbpf-dev): the loaders of bookworm's tc and bpftool know no tcx, and
 * the guest kernel has tcx (CONFIG_NET_XGRESS) but no clsact qdisc or
 * cls_bpf.  Run it in the device's netns.  The attachment stays after
 * this process exits, until the device goes away.
 *
 * SECTION=HEX, if given, is the initial value of the object's global data
 * section SECTION (.bss, .data or .rodata), all of it, in hex: the loader
 * knows no variable by name.  .rodata is frozen at load: the verifier
 * takes what the program reads from it as constants.
 *
 * usage: tcx_load OBJ ingress|egress DEV [SECTION=HEX]
 */

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* enum bpf_attach_type of Linux 6.6 and later; bookworm's headers are older. */
#define TCX_INGRESS	46
#define TCX_EGRESS	47

/* Its internal maps are named after the object, then the section. */
static int set_section(struct bpf_object *obj, const char *arg)
{
	const char *hex = strchr(arg, '=');
	struct bpf_map *map = NULL, *m;
	size_t len, i, size, slen;
	unsigned char *buf;
	int err;

	if (!hex || hex == arg) {
		fprintf(stderr, "tcx_load: not SECTION=HEX: %s\n", arg);
		return -1;
	}
	slen = hex - arg;
	hex++;
	len = strlen(hex) / 2;
	bpf_object__for_each_map(m, obj) {
		const char *name = bpf_map__name(m);
		size_t n = strlen(name);

		if (n >= slen && !strncmp(name + n - slen, arg, slen))
			map = m;
	}
	if (!map) {
		fprintf(stderr, "tcx_load: the object has no %.*s\n",
			(int)slen, arg);
		return -1;
	}
	size = bpf_map__value_size(map);
	if (strlen(hex) % 2 || len != size) {
		fprintf(stderr, "tcx_load: %.*s has %zu bytes, not %zu\n",
			(int)slen, arg, size, len);
		return -1;
	}
	buf = malloc(len);
	if (!buf)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned int b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1) {
			fprintf(stderr, "tcx_load: bad hex %s\n", hex);
			free(buf);
			return -1;
		}
		buf[i] = b;
	}
	err = bpf_map__set_initial_value(map, buf, len);
	free(buf);
	return err;
}

int main(int argc, char **argv)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	unsigned int ifindex;
	int type, err;

	if (argc < 4 || argc > 5 ||
	    (strcmp(argv[2], "ingress") && strcmp(argv[2], "egress"))) {
		fprintf(stderr, "usage: %s OBJ ingress|egress DEV [SECTION=HEX]\n",
			argv[0]);
		return 2;
	}
	type = strcmp(argv[2], "ingress") ? TCX_EGRESS : TCX_INGRESS;
	ifindex = if_nametoindex(argv[3]);
	if (!ifindex) {
		fprintf(stderr, "tcx_load: no device %s\n", argv[3]);
		return 1;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "tcx_load: cannot open %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	if (argc == 5 && set_section(obj, argv[4]))
		return 1;
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "tcx_load: cannot load %s: %s\n", argv[1],
			strerror(-err));
		return 1;
	}
	prog = bpf_object__next_program(obj, NULL);
	if (!prog) {
		fprintf(stderr, "tcx_load: %s has no program\n", argv[1]);
		return 1;
	}
	if (bpf_prog_attach(bpf_program__fd(prog), ifindex, type, 0)) {
		fprintf(stderr, "tcx_load: cannot attach to %s %s: %s\n",
			argv[3], argv[2], strerror(errno));
		return 1;
	}
	bpf_object__close(obj);
	return 0;
}
