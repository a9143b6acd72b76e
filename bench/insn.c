// SPDX-License-Identifier: GPL-2.0
/*
 * insn: a QEMU TCG plugin that counts the instructions each vCPU of the
 * bench's guest executes, in kernel and in user mode, and writes a snapshot
 * of all counters to a file whenever the guest executes a marker
 * instruction.  The bench (bench/srperf.py) fires the marker before and
 * after each trial and reads the snapshot back through the 9p directory
 * the file lives in: the difference on the SUT's vCPU is the work the
 * trial's packets cost, in instructions, whatever the host's speed.
 *
 * The marker is `movabs $INSN_MAGIC, %r11` (49 bb + 8 bytes): no compiler
 * emits that constant, it has no side effect but on a scratch register,
 * and it is recognised at translation time by its bytes, so only its own
 * translation block pays for the check.
 *
 * Built against the plugin API header of the QEMU that loads it
 * (include/qemu/qemu-plugin.h of Debian's qemu source package, see
 * scripts/fetch-sources.sh):
 *
 *	gcc -O2 -shared -fPIC -I$(dirname QEMU_PLUGIN_H) -o insn.so insn.c
 *
 * and loaded with `-plugin insn.so,out=FILE`.  FILE is rewritten at offset 0
 * on each marker with one record, little-endian u64 words:
 *
 *	magic ("INSNCNT1"), sequence number, vCPU that fired it, vCPU count,
 *	then per vCPU: instructions executed, of which in kernel mode.
 *
 * Counting is per translation block: a callback at each block's entry adds
 * the block's instruction count (known at translation time) to the
 * executing vCPU's counters.  A block left early by an exception or an
 * interrupt counts whole; under icount, execution is deterministic and so
 * is that error.  Kernel mode is the upper half of the x86-64 address
 * space, where the block starts.
 *
 * Profile (`prof=DIR`, optional `prof_vcpu=N`, default 1: the SUT's): where
 * the kernel-mode instructions of vCPU N go.  Each kernel block (by start
 * address and length) counts its executions on that vCPU, and each marker
 * writes DIR/prof.SEQ, SEQ the snapshot's sequence number: one line
 * "address instructions executions" per block executed since the marker
 * before, in hex, decimal, decimal; then the counts start again from zero.
 * bench/profile.py sums a trial's files by function (System.map).
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <qemu-plugin.h>

#define INSN_MAGIC	0x5a3c96a55aa5c396ULL	/* the marker's immediate */
#define INSN_RECORD	0x31544e434e534e49ULL	/* "INSNCNT1" */
#define INSN_MARKER_LEN	10

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* One cache line per vCPU: under MTTCG each vCPU thread writes its own. */
struct vcpu_count {
	uint64_t all;
	uint64_t kernel;
	uint64_t pad[6];
};

static struct vcpu_count *counts;
static int nr_vcpus;
static int out_fd = -1;
static uint64_t seq;
static pthread_mutex_t snap_lock = PTHREAD_MUTEX_INITIALIZER;

/* The profile: one entry per kernel block (start, length), open addressing. */
#define PROF_SLOTS	(1u << 18)

struct prof_block {
	uint64_t vaddr;
	uint64_t count;
	uint32_t ninsn;
};

static const char *prof_dir;
static unsigned int prof_vcpu = 1;
static struct prof_block *prof;
static unsigned int prof_used;
static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;

/* udata of a block: its instruction count << 1 | kernel mode. */
static void tb_exec(unsigned int vcpu, void *udata)
{
	uintptr_t v = (uintptr_t)udata;

	if (vcpu >= (unsigned int)nr_vcpus)
		return;
	counts[vcpu].all += v >> 1;
	if (v & 1)
		counts[vcpu].kernel += v >> 1;
}

static void prof_exec(unsigned int vcpu, void *udata)
{
	struct prof_block *b = udata;

	if (vcpu == prof_vcpu)
		b->count++;
}

/* The block's entry, made at its first translation; NULL if full. */
static struct prof_block *prof_block(uint64_t vaddr, uint32_t ninsn)
{
	uint64_t h = (vaddr ^ ((uint64_t)ninsn << 48)) * 0x9e3779b97f4a7c15ULL;
	unsigned int i = h >> 46, n;
	struct prof_block *b = NULL;

	pthread_mutex_lock(&prof_lock);
	for (n = 0; n < PROF_SLOTS; n++, i = (i + 1) & (PROF_SLOTS - 1)) {
		if (!prof[i].ninsn) {
			if (prof_used >= PROF_SLOTS / 2)
				break;
			prof[i].vaddr = vaddr;
			prof[i].ninsn = ninsn;
			prof_used++;
			b = &prof[i];
			break;
		}
		if (prof[i].vaddr == vaddr && prof[i].ninsn == ninsn) {
			b = &prof[i];
			break;
		}
	}
	pthread_mutex_unlock(&prof_lock);
	return b;
}

static void prof_write(uint64_t n)
{
	char path[4096];
	unsigned int i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/prof.%llu", prof_dir,
		 (unsigned long long)n);
	f = fopen(path, "w");
	if (!f) {
		qemu_plugin_outs("insn: cannot write a profile\n");
		return;
	}
	pthread_mutex_lock(&prof_lock);
	for (i = 0; i < PROF_SLOTS; i++) {
		if (!prof[i].count)
			continue;
		fprintf(f, "%llx %u %llu\n", (unsigned long long)prof[i].vaddr,
			prof[i].ninsn, (unsigned long long)prof[i].count);
		prof[i].count = 0;
	}
	pthread_mutex_unlock(&prof_lock);
	fclose(f);
}

static void marker_exec(unsigned int vcpu, void *udata)
{
	uint64_t rec[4 + 2 * nr_vcpus];
	int i;

	(void)udata;
	pthread_mutex_lock(&snap_lock);
	rec[0] = INSN_RECORD;
	rec[1] = ++seq;
	rec[2] = vcpu;
	rec[3] = nr_vcpus;
	for (i = 0; i < nr_vcpus; i++) {
		/* Another vCPU's counter may move meanwhile (MTTCG only). */
		rec[4 + 2 * i] = __atomic_load_n(&counts[i].all, __ATOMIC_RELAXED);
		rec[5 + 2 * i] = __atomic_load_n(&counts[i].kernel, __ATOMIC_RELAXED);
	}
	/* The guest reads it once the marker has returned. */
	if (prof)
		prof_write(seq);
	if (pwrite(out_fd, rec, sizeof(rec), 0) != (ssize_t)sizeof(rec))
		qemu_plugin_outs("insn: cannot write the snapshot\n");
	pthread_mutex_unlock(&snap_lock);
}

static bool is_marker(struct qemu_plugin_insn *insn)
{
	const uint8_t *p = qemu_plugin_insn_data(insn);
	uint64_t imm;

	if (qemu_plugin_insn_size(insn) != INSN_MARKER_LEN)
		return false;
	if (p[0] != 0x49 || p[1] != 0xbb)	/* REX.W+B, mov imm64 to r11 */
		return false;
	memcpy(&imm, p + 2, sizeof(imm));
	return imm == INSN_MAGIC;	/* x86 is little-endian, so is the host */
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	int kernel = qemu_plugin_tb_vaddr(tb) >> 63;
	size_t i;

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)(n << 1 | kernel));
	if (prof && kernel) {
		struct prof_block *b = prof_block(qemu_plugin_tb_vaddr(tb), n);

		if (b)
			qemu_plugin_register_vcpu_tb_exec_cb(tb, prof_exec,
							     QEMU_PLUGIN_CB_NO_REGS,
							     b);
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (is_marker(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_exec,
							       QEMU_PLUGIN_CB_NO_REGS,
							       NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	char line[128];
	int i;

	(void)id;
	(void)udata;
	for (i = 0; i < nr_vcpus; i++) {
		snprintf(line, sizeof(line),
			 "insn: vCPU %d: %llu instructions, %llu in kernel mode\n", i,
			 (unsigned long long)counts[i].all,
			 (unsigned long long)counts[i].kernel);
		qemu_plugin_outs(line);
	}
	if (out_fd >= 0)
		close(out_fd);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *out = NULL;
	int i;

	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insn: x86_64 system emulation only\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out = argv[i] + 4;
		} else if (!strncmp(argv[i], "prof=", 5)) {
			prof_dir = argv[i] + 5;
		} else if (!strncmp(argv[i], "prof_vcpu=", 10)) {
			prof_vcpu = strtoul(argv[i] + 10, NULL, 0);
		} else {
			fprintf(stderr, "insn: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (!out) {
		fprintf(stderr, "insn: out=FILE is required\n");
		return -1;
	}
	out_fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out_fd < 0) {
		fprintf(stderr, "insn: %s: %s\n", out, strerror(errno));
		return -1;
	}
	nr_vcpus = info->system.max_vcpus;
	counts = aligned_alloc(64, nr_vcpus * sizeof(*counts));
	if (!counts) {
		close(out_fd);
		return -1;
	}
	memset(counts, 0, nr_vcpus * sizeof(*counts));
	if (prof_dir) {
		prof = calloc(PROF_SLOTS, sizeof(*prof));
		if (!prof) {
			close(out_fd);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
