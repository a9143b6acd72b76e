/* SPDX-License-Identifier: GPL-2.0 */
/*
 * STAMP Session-Reflector: what the data path (stamp_rx.c), the netlink
 * handlers (stamp_nl.c) and the module's core (stamp_core.c) share.
 */

#ifndef _NET_STAMP_STAMP_H
#define _NET_STAMP_STAMP_H

#include <linux/jhash.h>
#include <linux/hashtable.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/u64_stats_sync.h>
#include <net/dst_cache.h>
#include <net/netns/generic.h>

/* Error Estimate (RFC 4656 section 4.1.2): S, Z, Scale, Multiplier. */
#define STAMP_EE_S		0x8000
#define STAMP_EE_Z		0x4000
#define STAMP_EE_MULT_MASK	0x00ff
#define STAMP_EE_DEFAULT	0x0001

#define STAMP_SESSION_HASH_BITS	8

/* The statistics, each counted under one netlink attribute. */
enum {
	STAMP_STAT_RX,
	STAMP_STAT_TX,
	STAMP_STAT_DROP_MALFORMED,
	STAMP_STAT_DROP_AUTH,
	STAMP_STAT_DROP_NO_SESSION,
	STAMP_STAT_DROP_XMIT,
	STAMP_STAT_TLV_MALFORMED,
	STAMP_STAT_TLV_UNKNOWN,
	STAMP_STAT_DROP_SOURCE,
	STAMP_STAT_DROP_REFLECTED,
	STAMP_STAT_TLV_LIMIT,
	STAMP_STAT_ALTMARK_BLOCKS,
	STAMP_STAT_ALTMARK_REFUSED,
	STAMP_STAT_MAX,
};

struct stamp_pcpu_stats {
	u64_stats_t		cnt[STAMP_STAT_MAX];
	struct u64_stats_sync	syncp;
};

union stamp_addr {
	__be32		v4;
	struct in6_addr	v6;
};

/* What the route of a reply depends on: the flow of the lookup. */
struct stamp_dst_key {
	union stamp_addr	daddr;
	union stamp_addr	saddr;
	u32			mark;
	int			oif;
	__be16			dport;
	u8			tos;
	bool			v6;
};

struct stamp_reflector {
	struct list_head		list;
	struct socket			*sock;
	struct stamp_pcpu_stats __percpu *stats;
	/* The route of the last reply on each CPU, and its key: test traffic
	 * comes from few Session-Senders, so one lookup serves the replies to
	 * the same one until the key changes or the route is no longer valid
	 * (the dst_cache checks it: a change of the routes invalidates it).
	 */
	struct dst_cache		dst_cache;
	struct stamp_dst_key __percpu	*dst_key;
	union stamp_addr		addr;
	u8				family;	/* 0: any address */
	u16				port;
	u8				mode;
	bool				auth;
	bool				early_ts;
	u16				err_est;
	u16				sport_min;
	u8				altmark;	/* STAMP_ALTMARK_* */
};

/* What a change of a session replaces, as one: the receive path reads it
 * once per packet.
 */
struct stamp_session_cfg {
	/* The return path, with room for the final segment in segments[0];
	 * srh_short leaves out the last configured SID when it is the final
	 * destination itself.
	 */
	struct ipv6_sr_hdr		*srh;
	struct ipv6_sr_hdr		*srh_short;
	struct crypto_shash		*tfm;
};

struct stamp_session {
	struct hlist_node		node;
	struct stamp_pcpu_stats __percpu *stats;
	struct stamp_session_cfg __rcu	*cfg;
	atomic_t			seq;
	union stamp_addr		peer;
	u8				family;	/* 0: any peer */
	u16				ssid;
};

struct stamp_net {
	struct mutex		lock;	/* writers of both lists */
	struct list_head	reflectors;
	unsigned int		n_reflectors;
	unsigned int		n_sessions;
	/* Hashed by SSID and peer, with a seed of this namespace's: many
	 * sessions of one SSID do not make one long chain, and which ones
	 * share a chain is different in every namespace.
	 */
	u32			seed;
	DECLARE_HASHTABLE(sessions, STAMP_SESSION_HASH_BITS);
};

extern unsigned int stamp_net_id;
extern unsigned int stamp_sessions_max;
extern unsigned int stamp_reflectors_max;
extern atomic_t stamp_sessions_live;

static inline struct stamp_net *stamp_pernet(struct net *net)
{
	return net_generic(net, stamp_net_id);
}

static inline u32 stamp_session_hash(const struct stamp_net *sn, u16 ssid,
				     u8 family, const union stamp_addr *peer)
{
	u32 initval = sn->seed ^ ssid;

	if (family == AF_INET6)
		return jhash2(peer->v6.s6_addr32, 4, initval);
	if (family == AF_INET)
		return jhash_1word((__force u32)peer->v4, initval);
	return jhash_1word(0, initval);
}

/* stamp_core.c: the reflectors' and sessions' lifetimes */
int stamp_reflector_init_route(struct stamp_reflector *r);
void stamp_reflector_release(struct stamp_reflector *r);
void stamp_reflector_unhook(struct stamp_reflector *r);
void stamp_reflector_destroy(struct stamp_reflector *r);
int stamp_reflector_sock(struct net *net, struct stamp_reflector *r);
void stamp_reflector_replace(struct stamp_reflector *old,
			     struct stamp_reflector *r);
void stamp_session_cfg_free(struct stamp_session_cfg *c);
void stamp_session_free(struct stamp_session *s);

/* stamp_rx.c: the data path, a reflector socket's encap_rcv */
int stamp_udp_rcv(struct sock *sk, struct sk_buff *skb);

#endif /* _NET_STAMP_STAMP_H */
