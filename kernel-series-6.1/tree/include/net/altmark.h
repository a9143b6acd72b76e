/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPv6 Alternate-Marking (RFC 9343): not in this kernel.  What the STAMP
 * reflector reads of it, answering that there is none.
 */

#ifndef _NET_ALTMARK_H
#define _NET_ALTMARK_H

#include <linux/errno.h>
#include <linux/types.h>

/* The largest FlowMonID: 20 bits (RFC 9343, section 3) */
#define ALTMARK_FLOWMON_MAX	1048575

struct net;

struct altmark_block {
	u64 number;
	u64 packets;
	u64 bytes;
	u64 ts_sum;
	u64 dmark_ns;
	u32 flags;
};

static inline int altmark_block_get(struct net *net, u32 flowmon,
				    u64 number, struct altmark_block *b,
				    u32 *period_ms)
{
	return -EOPNOTSUPP;
}

#endif /* _NET_ALTMARK_H */
