// SPDX-License-Identifier: GPL-2.0
/*
 * The generator's frame rewriter: turn the frames pktgen sends on a device
 * into a given frame.
 *
 * pktgen builds only UDP frames; srperf needs SRv6 frames (an SRH, STAMP,
 * IOAM) at pktgen's speed.  This program, at the device's tcx egress hook,
 * writes the template over the frame from byte OFFSET on with one
 * bpf_skb_store_bytes().  pktgen sends through the qdisc layer (xmit_mode
 * queue_xmit), so it runs in pktgen's kthread, on the generator's CPU,
 * once per fresh skb; the frame the receiver gets is the template, byte
 * for byte, when pktgen's frame has the template's length and carries
 * zeros where the template ends (srperf.py makes sure of both).
 *
 * The template is the object's .rodata, set by the loader before the
 * program is loaded (bench/tcx_load.c, from srperf.py): the verifier sees
 * a frozen map, so its offset and length are constants of the program.
 */

#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#define TEMPLATE_MAX	512

const volatile struct {
	__u32	offset;
	__u32	len;		/* 1 to TEMPLATE_MAX */
	__u8	bytes[TEMPLATE_MAX];
} template;

SEC("tc")
int rewrite(struct __sk_buff *skb)
{
	__u32 len = template.len;

	if (len && len <= TEMPLATE_MAX)
		bpf_skb_store_bytes(skb, template.offset,
				    (const void *)template.bytes, len, 0);
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
