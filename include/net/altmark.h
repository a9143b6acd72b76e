/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPv6 Alternate-Marking (RFC 9343): monitors, counting, closed blocks.
 */

#ifndef _NET_ALTMARK_H
#define _NET_ALTMARK_H

#include <linux/skbuff.h>
#include <linux/types.h>
#include <uapi/linux/altmark.h>

/* The option (RFC 9343, section 3): type, length 4, then FlowMonID (20
 * bits), L, D and 10 reserved bits.  Alone in its extension header, it
 * makes a header of 8 bytes with no padding.
 */
#define ALTMARK_OPT_LEN		4
#define ALTMARK_HDR_LEN		8
#define ALTMARK_FLOWMON_SHIFT	12
#define ALTMARK_L		BIT(11)
#define ALTMARK_D		BIT(10)

struct net;
struct altmark_mon;

/* A closed block of a monitor: its counts, the sum of its packets'
 * offsets (ns) into their period, and when its double-marked packet was
 * counted (with ALTMARK_BLOCK_FLAGS_DMARK).
 */
struct altmark_block {
	u64 number;
	u64 packets;
	u64 bytes;
	u64 ts_sum;
	u64 dmark_ns;
	u32 flags;		/* ALTMARK_BLOCK_FLAGS_* */
};

#if IS_ENABLED(CONFIG_IPV6_ALTMARK)
__be32 altmark_tx(struct net *net, const struct sk_buff *skb, u32 flowmon,
		  bool delay, struct altmark_mon __rcu **cache);
void altmark_tx_release(struct altmark_mon __rcu **cache);
void altmark_seg6_rcv(struct sk_buff *skb);

DECLARE_STATIC_KEY_FALSE(altmark_rx_key);

static inline void altmark_seg6_input(struct sk_buff *skb)
{
	if (static_branch_unlikely(&altmark_rx_key))
		altmark_seg6_rcv(skb);
}

void altmark_opts_rcv(struct sk_buff *skb, bool hop);

static inline void altmark_opts_input(struct sk_buff *skb, bool hop)
{
	if (static_branch_unlikely(&altmark_rx_key))
		altmark_opts_rcv(skb, hop);
}

int altmark_block_get(struct net *net, u32 flowmon, u64 number,
		      struct altmark_block *b, u32 *period_ms);

int altmark_init(void);
void altmark_exit(void);
#else
static inline __be32 altmark_tx(struct net *net, const struct sk_buff *skb,
				u32 flowmon, bool delay,
				struct altmark_mon __rcu **cache)
{
	return 0;
}

static inline void altmark_tx_release(struct altmark_mon __rcu **cache)
{
}

static inline void altmark_seg6_input(struct sk_buff *skb)
{
}

static inline void altmark_opts_input(struct sk_buff *skb, bool hop)
{
}

static inline int altmark_block_get(struct net *net, u32 flowmon,
				    u64 number, struct altmark_block *b,
				    u32 *period_ms)
{
	return -EOPNOTSUPP;
}

static inline int altmark_init(void)
{
	return 0;
}

static inline void altmark_exit(void)
{
}
#endif

#endif /* _NET_ALTMARK_H */
