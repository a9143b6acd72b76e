// SPDX-License-Identifier: GPL-2.0
/*
 * STAMP Session-Reflector (RFC 8762, with the RFC 8972 extensions)
 *
 * A reflector is a kernel UDP socket whose encap_rcv hook answers every
 * Session-Sender test packet in softirq context: the test packet is turned
 * into the reply in place (RFC 8762 makes the two the same size), its
 * addresses and ports swapped, and sent back with ip6_local_out() or
 * ip_local_out().  No process is woken.
 *
 * Sessions are optional for a stateless unauthenticated reflector and
 * required otherwise.  A session is identified by its SSID and, optionally,
 * the Session-Sender's address.  It carries the per-session sequence number
 * of the stateful mode, the HMAC key of the authenticated mode, and the SRv6
 * return path: the reply's SRH is inserted (not encapsulated), with the
 * Session-Sender's address as the final segment, so the reply keeps its
 * addresses and UDP checksum and reaches the sender's socket without any
 * decapsulating SID at the sender.
 */

#define pr_fmt(fmt) "stamp: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/jhash.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/hashtable.h>
#include <linux/u64_stats_sync.h>
#include <linux/timekeeping.h>
#include <crypto/hash.h>
#include <crypto/algapi.h>
#include <crypto/sha2.h>
#include <net/dst_cache.h>
#include <net/genetlink.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/addrconf.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <net/inet_ecn.h>
#include <net/dsfield.h>
#include <net/seg6.h>
#include <uapi/linux/stamp.h>

#include "stamp_nl.h"

/* Packet layouts, RFC 8762 section 4 as updated by RFC 8972 section 3. */
#define STAMP_UNAUTH_LEN	44
#define STAMP_AUTH_LEN		112
#define STAMP_HMAC_LEN		16
#define STAMP_AUTH_HMAC_OFF	96

/* Unauthenticated Session-Sender and Session-Reflector test packets. */
struct stamp_snd_unauth {
	__be32	seq;
	__be64	ts;
	__be16	err_est;
	__be16	ssid;
	u8	mbz[28];
} __packed;

struct stamp_refl_unauth {
	__be32	seq;
	__be64	ts;
	__be16	err_est;
	__be16	ssid;
	__be64	rx_ts;
	__be32	snd_seq;
	__be64	snd_ts;
	__be16	snd_err_est;
	__be16	mbz1;
	u8	snd_ttl;
	u8	mbz2[3];
} __packed;

/* Authenticated ones: the same fields, 16-byte aligned, then an HMAC. */
struct stamp_snd_auth {
	__be32	seq;
	u8	mbz1[12];
	__be64	ts;
	__be16	err_est;
	__be16	ssid;
	u8	mbz2[68];
	u8	hmac[STAMP_HMAC_LEN];
} __packed;

struct stamp_refl_auth {
	__be32	seq;
	u8	mbz1[12];
	__be64	ts;
	__be16	err_est;
	__be16	ssid;
	u8	mbz2[4];
	__be64	rx_ts;
	u8	mbz3[8];
	__be32	snd_seq;
	u8	mbz4[12];
	__be64	snd_ts;
	__be16	snd_err_est;
	u8	mbz5[6];
	u8	snd_ttl;
	u8	mbz6[15];
	u8	hmac[STAMP_HMAC_LEN];
} __packed;

/* Error Estimate (RFC 4656 section 4.1.2): S, Z, Scale, Multiplier. */
#define STAMP_EE_S		0x8000
#define STAMP_EE_Z		0x4000
#define STAMP_EE_MULT_MASK	0x00ff
#define STAMP_EE_DEFAULT	0x0001

/* RFC 8972 TLVs */
struct stamp_tlv {
	u8	flags;
	u8	type;
	__be16	len;
} __packed;

#define STAMP_TLV_U		0x80	/* unrecognized */
#define STAMP_TLV_M		0x40	/* malformed */
#define STAMP_TLV_I		0x20	/* integrity check failed */

#define STAMP_TLV_PADDING	1
#define STAMP_TLV_TS_INFO	3
#define STAMP_TLV_COS		4
#define STAMP_TLV_DM		5
#define STAMP_TLV_HMAC		8

#define STAMP_TLV_TS_INFO_LEN	4
#define STAMP_TLV_COS_LEN	4
#define STAMP_TLV_DM_LEN	12

/* Timestamp Information TLV values (RFC 8972 sections 8.4 and 8.5) */
#define STAMP_SYNC_NTP		1
#define STAMP_SYNC_LOCAL	5
#define STAMP_TSM_HW		1
#define STAMP_TSM_SW		2

#define STAMP_NTP_EPOCH_OFFSET	2208988800ULL	/* 1900 to 1970 */

#define STAMP_SESSION_HASH_BITS	8

/* TLVs processed per test packet; those after them get the M flag.  A
 * Session-Sender needs a handful; a 64 KB datagram can carry thousands.
 */
#define STAMP_TLVS_MAX		32

/* What one network namespace may hold: every command is open to the owner
 * of a user namespace, and each session costs a few hundred bytes, per-CPU
 * counters and possibly an HMAC transform.
 */
static unsigned int sessions_max __read_mostly = 4096;
module_param(sessions_max, uint, 0644);
MODULE_PARM_DESC(sessions_max, "Sessions per network namespace (default 4096)");

static unsigned int reflectors_max __read_mostly = 64;
module_param(reflectors_max, uint, 0644);
MODULE_PARM_DESC(reflectors_max,
		 "Reflectors per network namespace (default 64)");

/* Sessions alive in all namespaces: what a namespace left behind shows here. */
static atomic_t stamp_sessions_live = ATOMIC_INIT(0);

static int stamp_sessions_live_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&stamp_sessions_live));
}

static const struct kernel_param_ops stamp_sessions_live_ops = {
	.get	= stamp_sessions_live_get,
};

/* root's only: a container must not learn what other namespaces hold */
module_param_cb(sessions, &stamp_sessions_live_ops, NULL, 0400);
MODULE_PARM_DESC(sessions, "Sessions alive in all network namespaces");

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
	STAMP_STAT_MAX,
};

static const u16 stamp_stat_attr[STAMP_STAT_MAX] = {
	[STAMP_STAT_RX]			= STAMP_STATS_A_RX,
	[STAMP_STAT_TX]			= STAMP_STATS_A_TX,
	[STAMP_STAT_DROP_MALFORMED]	= STAMP_STATS_A_DROP_MALFORMED,
	[STAMP_STAT_DROP_AUTH]		= STAMP_STATS_A_DROP_AUTH,
	[STAMP_STAT_DROP_NO_SESSION]	= STAMP_STATS_A_DROP_NO_SESSION,
	[STAMP_STAT_DROP_XMIT]		= STAMP_STATS_A_DROP_XMIT,
	[STAMP_STAT_TLV_MALFORMED]	= STAMP_STATS_A_TLV_MALFORMED,
	[STAMP_STAT_TLV_UNKNOWN]	= STAMP_STATS_A_TLV_UNKNOWN,
	[STAMP_STAT_DROP_SOURCE]	= STAMP_STATS_A_DROP_SOURCE,
	[STAMP_STAT_DROP_REFLECTED]	= STAMP_STATS_A_DROP_REFLECTED,
	[STAMP_STAT_TLV_LIMIT]		= STAMP_STATS_A_TLV_LIMIT,
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

static unsigned int stamp_net_id __read_mostly;

static struct stamp_net *stamp_pernet(struct net *net)
{
	return net_generic(net, stamp_net_id);
}

/* What the TLV area of a test packet says before it is rewritten, found in
 * one walk that never reads past @len: where the well-formed TLVs end (an
 * overrunning TLV starts there), the DSCP a CoS TLV asks for the reply, and
 * whether an HMAC TLV is wrong (RFC 8972 section 4.8: it covers the
 * Sequence Number and the TLVs before it).
 */
struct stamp_tlv_scan {
	unsigned int	end;
	unsigned int	limit;		/* TLVs from here on are not processed */
	int		cos_dsfield;	/* -1: no CoS TLV */
	bool		hmac_bad;
};

/* What the receive path learnt of the test packet before rewriting it. */
struct stamp_rx {
	union stamp_addr	saddr;
	union stamp_addr	daddr;
	ktime_t			t2;
	int			iif;
	__be16			sport;
	bool			v6;
	bool			hw_ts;
	u16			frag_max;	/* largest fragment, 0: whole */
	u8			ttl;
	u8			dsfield;
	u8			reply_dsfield;
	struct stamp_tlv_scan	tlv;
};

static void stamp_stat_inc(struct stamp_pcpu_stats __percpu *stats, int idx)
{
	struct stamp_pcpu_stats *s = this_cpu_ptr(stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->cnt[idx]);
	u64_stats_update_end(&s->syncp);
}

static void stamp_count(struct stamp_reflector *r, struct stamp_session *s,
			int idx)
{
	stamp_stat_inc(r->stats, idx);
	if (s)
		stamp_stat_inc(s->stats, idx);
}

static void stamp_stats_sum(struct stamp_pcpu_stats __percpu *stats,
			    u64 *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(u64) * STAMP_STAT_MAX);
	for_each_possible_cpu(cpu) {
		const struct stamp_pcpu_stats *s = per_cpu_ptr(stats, cpu);
		u64 v[STAMP_STAT_MAX];
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			for (i = 0; i < STAMP_STAT_MAX; i++)
				v[i] = u64_stats_read(&s->cnt[i]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		for (i = 0; i < STAMP_STAT_MAX; i++)
			sum[i] += v[i];
	}
}

/* The received and reflected counts alone, summed over the CPUs: what a
 * Direct Measurement TLV reports, per test packet, without the other
 * counters' reads.  Not stamp_stats_sum() with a count: its loops and
 * zeroing cost about 130 instructions more per test packet.
 */
static void stamp_stats_rx_tx(struct stamp_pcpu_stats __percpu *stats,
			      u64 *rx, u64 *tx)
{
	int cpu;

	*rx = 0;
	*tx = 0;
	for_each_possible_cpu(cpu) {
		const struct stamp_pcpu_stats *s = per_cpu_ptr(stats, cpu);
		unsigned int start;
		u64 vrx, vtx;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			vrx = u64_stats_read(&s->cnt[STAMP_STAT_RX]);
			vtx = u64_stats_read(&s->cnt[STAMP_STAT_TX]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		*rx += vrx;
		*tx += vtx;
	}
}

/* TAI - UTC, for the PTPv2 format: a whole number of seconds, so round
 * away the time between the two reads.
 */
static s64 stamp_tai_offset(void)
{
	ktime_t now = ktime_get_real();
	s64 off = ktime_to_ns(ktime_sub(ktime_get_clocktai(), now));

	return div_s64(off + NSEC_PER_SEC / 2, NSEC_PER_SEC) * NSEC_PER_SEC;
}

/* NTP 64-bit format (RFC 5905) from the real-time clock; or, given the TAI
 * offset (@ptp, when the Session-Sender set the Z bit), the PTPv2 truncated
 * format (seconds and nanoseconds of TAI, RFC 8762 section 4.2.1).
 */
static __be64 stamp_timestamp(ktime_t real, bool ptp, s64 tai_off)
{
	struct timespec64 ts;
	u64 frac;

	if (ptp) {
		ts = ktime_to_timespec64(ktime_add_ns(real, tai_off));
		return cpu_to_be64(((u64)(u32)ts.tv_sec << 32) | ts.tv_nsec);
	}
	ts = ktime_to_timespec64(real);
	frac = div_u64((u64)ts.tv_nsec << 32, NSEC_PER_SEC);
	return cpu_to_be64(((u64)(u32)(ts.tv_sec + STAMP_NTP_EPOCH_OFFSET) << 32) |
			   frac);
}

/* A hardware receive timestamp, or 0.  Where the driver flagged it with
 * SKBTX_HW_TSTAMP_NETDEV, the shared info holds the driver's own data (a
 * pointer), not a time: only the device that received the packet can turn
 * it into one, as the socket receive path does.
 */
static ktime_t stamp_rx_hwtstamp(struct sk_buff *skb)
{
	struct skb_shared_hwtstamps *hwts = skb_hwtstamps(skb);
	struct net_device *dev;

	if (!(skb_shinfo(skb)->tx_flags & SKBTX_HW_TSTAMP_NETDEV))
		return hwts->hwtstamp;
	dev = dev_get_by_napi_id(skb_napi_id(skb));
	return dev ? netdev_get_tstamp(dev, hwts, false) : 0;
}

/* T2: a hardware receive timestamp if the device gave one, else the one
 * taken when the packet entered the stack, if it took one (always for a
 * reflector with early_ts, which turns on net_enable_timestamp()), else
 * now, in the UDP socket's hook.
 */
static ktime_t stamp_rx_time(struct sk_buff *skb, bool *hw)
{
	ktime_t t = stamp_rx_hwtstamp(skb);

	*hw = t != 0;
	if (*hw)
		return t;
	if (skb->tstamp && skb->tstamp_type == SKB_CLOCK_REALTIME)
		return skb->tstamp;
	return ktime_get_real();
}

static u32 stamp_session_hash(const struct stamp_net *sn, u16 ssid,
			      u8 family, const union stamp_addr *peer)
{
	u32 initval = sn->seed ^ ssid;

	if (family == AF_INET6)
		return jhash2(peer->v6.s6_addr32, 4, initval);
	if (family == AF_INET)
		return jhash_1word((__force u32)peer->v4, initval);
	return jhash_1word(0, initval);
}

/* The session of @ssid for this Session-Sender, else the one for any. */
static struct stamp_session *stamp_session_lookup(struct stamp_net *sn,
						  u16 ssid,
						  const struct stamp_rx *rx)
{
	u8 family = rx->v6 ? AF_INET6 : AF_INET;
	struct stamp_session *s;

	hash_for_each_possible_rcu(sn->sessions, s, node,
				   stamp_session_hash(sn, ssid, family,
						      &rx->saddr)) {
		if (s->ssid != ssid || s->family != family)
			continue;
		if (rx->v6 ? ipv6_addr_equal(&s->peer.v6, &rx->saddr.v6) :
			     s->peer.v4 == rx->saddr.v4)
			return s;
	}
	hash_for_each_possible_rcu(sn->sessions, s, node,
				   stamp_session_hash(sn, ssid, 0, NULL))
		if (s->ssid == ssid && !s->family)
			return s;
	return NULL;
}

static int stamp_hmac(struct crypto_shash *tfm, const u8 *a, unsigned int alen,
		      const u8 *b, unsigned int blen, u8 *out)
{
	u8 digest[SHA256_DIGEST_SIZE];
	int err;

	SHASH_DESC_ON_STACK(desc, tfm);

	desc->tfm = tfm;
	err = crypto_shash_init(desc) ?:
	      crypto_shash_update(desc, a, alen) ?:
	      crypto_shash_update(desc, b, blen) ?:
	      crypto_shash_final(desc, digest);
	shash_desc_zero(desc);
	if (!err)
		memcpy(out, digest, STAMP_HMAC_LEN);
	memzero_explicit(digest, sizeof(digest));
	return err;
}

static bool stamp_hmac_ok(struct crypto_shash *tfm, const u8 *a,
			  unsigned int alen, const u8 *b, unsigned int blen,
			  const u8 *mac)
{
	u8 want[STAMP_HMAC_LEN];

	if (stamp_hmac(tfm, a, alen, b, blen, want))
		return false;
	return !crypto_memneq(want, mac, STAMP_HMAC_LEN);
}

static void stamp_tlvs_scan(struct crypto_shash *tfm, bool auth, const u8 *p,
			    unsigned int base, unsigned int len,
			    struct stamp_tlv_scan *scan)
{
	bool hmac_seen = false;
	unsigned int off = base;
	int n = 0;

	scan->cos_dsfield = -1;
	scan->hmac_bad = false;
	scan->limit = len;
	while (off < len) {
		const struct stamp_tlv *t = (const void *)(p + off);
		unsigned int vlen;

		if (len - off < sizeof(*t) ||
		    be16_to_cpu(t->len) > len - off - sizeof(*t))
			break;
		vlen = be16_to_cpu(t->len);
		if (n++ == STAMP_TLVS_MAX && scan->limit == len)
			scan->limit = off;
		if (off >= scan->limit) {
			off += sizeof(*t) + vlen;
			continue;
		}
		if (t->type == STAMP_TLV_COS && vlen == STAMP_TLV_COS_LEN &&
		    scan->cos_dsfield < 0)
			scan->cos_dsfield = p[off + sizeof(*t)] & ~INET_ECN_MASK;
		/* Only the first HMAC TLV is checked: each costs an HMAC. */
		if (t->type == STAMP_TLV_HMAC && vlen == STAMP_HMAC_LEN && auth &&
		    !hmac_seen) {
			hmac_seen = true;
			scan->hmac_bad = !stamp_hmac_ok(tfm, p, sizeof(__be32),
							p + base, off - base,
							p + off + sizeof(*t));
		}
		off += sizeof(*t) + vlen;
	}
	scan->end = min(off, len);
	scan->limit = min(scan->limit, scan->end);
}

struct stamp_tlv_ctx {
	struct stamp_reflector	*r;
	struct stamp_session	*s;
	struct crypto_shash	*tfm;		/* the session's, if any */
	const struct stamp_rx	*rx;
	int			hmac_off;	/* reply HMAC TLV value, or -1 */
	bool			dm_read;	/* dm_rx and dm_tx are set */
	u32			dm_rx;
	u32			dm_tx;
};

static bool stamp_tlv_len_ok(const struct stamp_tlv *t, unsigned int want,
			     bool at_least)
{
	unsigned int len = be16_to_cpu(t->len);

	return at_least ? len >= want : len == want;
}

/* Fill one TLV of the reply in place; return its flags. */
static u8 stamp_tlv_reply(struct stamp_tlv_ctx *ctx, u8 *p, unsigned int off)
{
	struct stamp_tlv *t = (void *)(p + off);
	u8 *v = p + off + sizeof(*t);
	u64 rx, tx;
	u16 cos;

	switch (t->type) {
	case STAMP_TLV_PADDING:
		return 0;
	case STAMP_TLV_TS_INFO:
		if (!stamp_tlv_len_ok(t, STAMP_TLV_TS_INFO_LEN, true))
			return STAMP_TLV_M;
		v[0] = ctx->r->err_est & STAMP_EE_S ? STAMP_SYNC_NTP :
						      STAMP_SYNC_LOCAL;
		v[1] = ctx->rx->hw_ts ? STAMP_TSM_HW : STAMP_TSM_SW;
		v[2] = v[0];
		v[3] = STAMP_TSM_SW;
		return 0;
	case STAMP_TLV_COS:
		if (!stamp_tlv_len_ok(t, STAMP_TLV_COS_LEN, false))
			return STAMP_TLV_M;
		/* DSCP1 (6 bits) is what the sender asks for the reply;
		 * DSCP2 (6) and ECN (2) are what arrived here; RP (2) = 0
		 * says DSCP1 was used.
		 */
		cos = (v[0] >> 2) << 10 |
		      (ctx->rx->dsfield >> 2) << 4 |
		      (ctx->rx->dsfield & INET_ECN_MASK) << 2;
		put_unaligned_be16(cos, v);
		return 0;
	case STAMP_TLV_DM:
		if (!stamp_tlv_len_ok(t, STAMP_TLV_DM_LEN, false))
			return STAMP_TLV_M;
		/* S-TX is the sender's; R-RX counts this packet, R-TX this
		 * reply.  The per-CPU counters are summed once per packet,
		 * however many DM TLVs it carries.
		 */
		if (!ctx->dm_read) {
			stamp_stats_rx_tx(ctx->s ? ctx->s->stats :
					  ctx->r->stats, &rx, &tx);
			ctx->dm_rx = rx;
			ctx->dm_tx = tx + 1;
			ctx->dm_read = true;
		}
		put_unaligned_be32(ctx->dm_rx, v + 4);
		put_unaligned_be32(ctx->dm_tx, v + 8);
		return 0;
	case STAMP_TLV_HMAC:
		if (!stamp_tlv_len_ok(t, STAMP_HMAC_LEN, false))
			return STAMP_TLV_M;
		if (ctx->r->auth) {
			/* One HMAC TLV per packet: the first was checked. */
			if (ctx->hmac_off >= 0)
				return STAMP_TLV_M;
			ctx->hmac_off = off + sizeof(*t);
			return ctx->rx->tlv.hmac_bad ? STAMP_TLV_I : 0;
		}
		return 0;
	default:
		return STAMP_TLV_U;
	}
}

static void stamp_tlvs_reply(struct stamp_tlv_ctx *ctx, u8 *p,
			     unsigned int base, unsigned int len)
{
	unsigned int limit = ctx->rx->tlv.limit;
	unsigned int end = ctx->rx->tlv.end;
	unsigned int off = base;
	bool unknown = false;
	u8 flags;

	while (off < end) {
		struct stamp_tlv *t = (void *)(p + off);

		/* Past the limit a TLV is only flagged, never processed. */
		flags = off < limit ? stamp_tlv_reply(ctx, p, off) : STAMP_TLV_M;
		if ((flags & STAMP_TLV_M) && off < limit)
			stamp_count(ctx->r, ctx->s, STAMP_STAT_TLV_MALFORMED);
		unknown |= flags & STAMP_TLV_U;
		t->flags = (t->flags & ~(STAMP_TLV_U | STAMP_TLV_M |
					 STAMP_TLV_I)) | flags;
		off += sizeof(*t) + be16_to_cpu(t->len);
	}
	if (unknown)
		stamp_count(ctx->r, ctx->s, STAMP_STAT_TLV_UNKNOWN);
	if (limit < end)
		stamp_count(ctx->r, ctx->s, STAMP_STAT_TLV_LIMIT);
	if (end < len) {
		/* A TLV that overruns the packet: flag it, leave the rest. */
		p[end] |= STAMP_TLV_M;
		stamp_count(ctx->r, ctx->s, STAMP_STAT_TLV_MALFORMED);
	}
	if (ctx->hmac_off >= 0)
		stamp_hmac(ctx->tfm, p, sizeof(__be32), p + base,
			   ctx->hmac_off - sizeof(struct stamp_tlv) - base,
			   p + ctx->hmac_off);
}

/* Rewrite the test packet @p (@len bytes of UDP payload) into the reply. */
static void stamp_build_reply(struct stamp_reflector *r,
			      struct stamp_session *s,
			      struct crypto_shash *tfm,
			      const struct stamp_rx *rx, u8 *p,
			      unsigned int len)
{
	struct stamp_tlv_ctx ctx = { .r = r, .s = s, .tfm = tfm, .rx = rx,
				     .hmac_off = -1 };
	unsigned int base = r->auth ? STAMP_AUTH_LEN : STAMP_UNAUTH_LEN;
	__be16 snd_ee, *ee;
	__be64 snd_ts, *ts;
	__be32 seq;
	s64 tai_off = 0;
	bool ptp;

	ptp = get_unaligned_be16(p + (r->auth ?
				      offsetof(struct stamp_snd_auth, err_est) :
				      offsetof(struct stamp_snd_unauth, err_est))) &
	      STAMP_EE_Z;
	if (ptp)
		tai_off = stamp_tai_offset();

	if (r->auth) {
		struct stamp_snd_auth *snd = (void *)p;
		struct stamp_refl_auth *rep = (void *)p;

		snd_ts = snd->ts;
		snd_ee = snd->err_est;
		seq = snd->seq;
		memset(rep->mbz2, 0, STAMP_AUTH_HMAC_OFF -
		       offsetof(struct stamp_refl_auth, mbz2));
		memset(rep->mbz1, 0, sizeof(rep->mbz1));
		rep->rx_ts = stamp_timestamp(rx->t2, ptp, tai_off);
		rep->snd_seq = seq;
		rep->snd_ts = snd_ts;
		rep->snd_err_est = snd_ee;
		rep->snd_ttl = rx->ttl;
		ts = &rep->ts;
		ee = &rep->err_est;
	} else {
		struct stamp_snd_unauth *snd = (void *)p;
		struct stamp_refl_unauth *rep = (void *)p;

		snd_ts = snd->ts;
		snd_ee = snd->err_est;
		seq = snd->seq;
		rep->rx_ts = stamp_timestamp(rx->t2, ptp, tai_off);
		rep->snd_seq = seq;
		rep->snd_ts = snd_ts;
		rep->snd_err_est = snd_ee;
		rep->mbz1 = 0;
		rep->snd_ttl = rx->ttl;
		memset(rep->mbz2, 0, sizeof(rep->mbz2));
		ts = &rep->ts;
		ee = &rep->err_est;
	}

	if (r->mode == STAMP_MODE_STATEFUL)
		seq = cpu_to_be32(atomic_fetch_inc(&s->seq));
	*(__be32 *)p = seq;
	*ee = cpu_to_be16((r->err_est & ~STAMP_EE_Z) |
			  (ptp ? STAMP_EE_Z : 0));

	if (len > base)
		stamp_tlvs_reply(&ctx, p, base, len);

	/* T3, as late as the payload allows: only the HMAC comes after. */
	*ts = stamp_timestamp(ktime_get_real(), ptp, tai_off);
	if (r->auth)
		stamp_hmac(tfm, p, STAMP_AUTH_HMAC_OFF, NULL, 0,
			   p + STAMP_AUTH_HMAC_OFF);
}

/* Field by field: memcmp() of the whole key costs more than the rest of
 * the cache's lookup.
 */
static bool stamp_dst_key_equal(const struct stamp_dst_key *a,
				const struct stamp_dst_key *b)
{
	if (a->v6 != b->v6 || a->mark != b->mark || a->oif != b->oif)
		return false;
	if (a->v6)
		return ipv6_addr_equal(&a->daddr.v6, &b->daddr.v6) &&
		       ipv6_addr_equal(&a->saddr.v6, &b->saddr.v6) &&
		       a->dport == b->dport;
	return a->daddr.v4 == b->daddr.v4 && a->saddr.v4 == b->saddr.v4 &&
	       a->dport == b->dport && a->tos == b->tos;
}

/* The cached route for @key, held, or NULL. */
static struct dst_entry *stamp_dst_get(struct stamp_reflector *r,
				       const struct stamp_dst_key *key)
{
	if (!stamp_dst_key_equal(this_cpu_ptr(r->dst_key), key))
		return NULL;
	return dst_cache_get(&r->dst_cache);
}

static void stamp_dst_set(struct stamp_reflector *r,
			  const struct stamp_dst_key *key,
			  struct dst_entry *dst)
{
	if (key->v6)
		dst_cache_set_ip6(&r->dst_cache, dst, &key->saddr.v6);
	else
		dst_cache_set_ip4(&r->dst_cache, dst, key->saddr.v4);
	memcpy(this_cpu_ptr(r->dst_key), key, sizeof(*key));
}

/* The UDP checksum of the reply (skb->data at its UDP header): left to
 * the device, or to the stack before a device that cannot do it, as a UDP
 * socket leaves it; computed here (@sw) for a reply over an SRv6 return
 * path, whose extension header not every device's offload parses.  The
 * pseudo-header is that of the final destination, the Session-Sender.
 */
static void stamp_udp_csum(struct sk_buff *skb, const struct stamp_rx *rx,
			   bool sw)
{
	struct udphdr *uh = udp_hdr(skb);
	__wsum csum = 0;

	uh->check = 0;
	if (sw)
		csum = skb_checksum(skb, 0, skb->len, 0);
	if (rx->v6)
		uh->check = csum_ipv6_magic(&rx->daddr.v6, &rx->saddr.v6,
					    skb->len, IPPROTO_UDP, csum);
	else
		uh->check = csum_tcpudp_magic(rx->daddr.v4, rx->saddr.v4,
					      skb->len, IPPROTO_UDP, csum);
	if (sw) {
		if (!uh->check)
			uh->check = CSUM_MANGLED_0;
		skb->ip_summed = CHECKSUM_NONE;
		return;
	}
	uh->check = ~uh->check;
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct udphdr, check);
}

/* Whether the reply, as large as its test packet, leaves in no more packets
 * than that came in: whole if it fits the path MTU, else in fragments no
 * smaller than the test packet's largest. A Packet Too Big or Fragmentation
 * Needed for the source, which anyone can send, lowers the path MTU: the
 * reflector must not then answer one test packet with many to the source.
 */
static bool stamp_fits(const struct sk_buff *skb, const struct dst_entry *dst,
		       const struct stamp_rx *rx)
{
	unsigned int mtu = dst_mtu(dst);

	return skb->len <= mtu || (rx->frag_max && mtu >= rx->frag_max);
}

static int stamp_xmit6(struct stamp_reflector *r,
		       const struct stamp_session_cfg *c, struct sk_buff *skb,
		       const struct stamp_rx *rx)
{
	struct net *net = sock_net(r->sock->sk);
	struct ipv6_sr_hdr *srh = NULL;
	struct stamp_dst_key key;
	struct dst_entry *dst;
	struct flowi6 fl6 = {};
	struct ipv6hdr *ip6h;
	unsigned int hlen;
	int err;

	if (IS_ENABLED(CONFIG_IPV6_SEG6_LWTUNNEL) && c && c->srh) {
		srh = c->srh;
		if (c->srh_short &&
		    ipv6_addr_equal(&srh->segments[1], &rx->saddr.v6))
			srh = c->srh_short;
	}
	hlen = sizeof(*ip6h) + (srh ? ipv6_optlen((struct ipv6_opt_hdr *)srh) : 0);
	err = skb_cow_head(skb, MAX_HEADER + hlen);
	if (err)
		return err;

	stamp_udp_csum(skb, rx, !!srh);

	skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, rx->reply_dsfield, 0);
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = 0;
	ip6h->saddr = rx->daddr.v6;
	ip6h->daddr = rx->saddr.v6;
	skb->protocol = htons(ETH_P_IPV6);

	if (IS_ENABLED(CONFIG_IPV6_SEG6_LWTUNNEL) && srh) {
		err = seg6_do_srh_inline(skb, srh);
		if (err)
			return err;
		ip6h = ipv6_hdr(skb);
	}
	skb_set_transport_header(skb, hlen);

	fl6.daddr = ip6h->daddr;
	fl6.saddr = ip6h->saddr;
	fl6.flowi6_proto = ip6h->nexthdr;
	fl6.flowi6_mark = skb->mark;
	fl6.fl6_sport = htons(r->port);
	fl6.fl6_dport = rx->sport;
	if (ipv6_addr_type(&fl6.daddr) & IPV6_ADDR_LINKLOCAL)
		fl6.flowi6_oif = rx->iif;

	memset(&key, 0, sizeof(key));
	key.v6 = true;
	key.daddr.v6 = fl6.daddr;
	key.saddr.v6 = fl6.saddr;
	key.mark = fl6.flowi6_mark;
	key.oif = fl6.flowi6_oif;
	key.dport = fl6.fl6_dport;
	dst = stamp_dst_get(r, &key);
	if (!dst) {
		dst = ip6_route_output(net, r->sock->sk, &fl6);
		if (dst->error) {
			err = dst->error;
			dst_release(dst);
			return err;
		}
		/* A return path's first segment is the administrator's
		 * choice, for a configured peer: only a reply straight to
		 * the sender is checked.
		 */
		if (!srh && (dst_rt6_info(dst)->rt6i_flags &
			     (RTF_LOCAL | RTF_ANYCAST))) {
			dst_release(dst);
			return -ELOOP;
		}
		/* IPsec policy, as for a UDP socket's datagram */
		dst = xfrm_lookup_route(net, dst, flowi6_to_flowi(&fl6),
					r->sock->sk, 0);
		if (IS_ERR(dst))
			return PTR_ERR(dst);
		stamp_dst_set(r, &key, dst);
	}
	skb_dst_set(skb, dst);
	/* a return path goes to the peer the administrator named */
	if (!srh && !stamp_fits(skb, dst, rx))
		return -EMSGSIZE;
	ip6h->hop_limit = ip6_dst_hoplimit(dst);
	/* Fragmented to the path MTU, as a UDP socket's datagram is
	 * (IPV6_PMTUDISC_WANT): a test packet that came in fragments
	 * is answered in fragments.
	 */
	skb->ignore_df = 1;

	err = ip6_local_out(net, r->sock->sk, skb);
	return net_xmit_eval(err) ? 0 : 1;
}

static int stamp_xmit4(struct stamp_reflector *r, struct sk_buff *skb,
		       const struct stamp_rx *rx)
{
	struct net *net = sock_net(r->sock->sk);
	struct stamp_dst_key key;
	struct dst_entry *dst;
	struct flowi4 fl4;
	struct iphdr *iph;
	struct rtable *rt;
	int err;

	err = skb_cow_head(skb, MAX_HEADER + sizeof(*iph));
	if (err)
		return err;

	memset(&key, 0, sizeof(key));
	key.daddr.v4 = rx->saddr.v4;
	key.saddr.v4 = rx->daddr.v4;
	key.dport = rx->sport;
	key.tos = rx->reply_dsfield & INET_DSCP_MASK;
	dst = stamp_dst_get(r, &key);
	if (!dst) {
		/* ip_route_output_ports(), with a look at the route before
		 * the IPsec policy's
		 */
		flowi4_init_output(&fl4, 0, 0, key.tos, RT_SCOPE_UNIVERSE,
				   IPPROTO_UDP, 0, key.daddr.v4, key.saddr.v4,
				   key.dport, htons(r->port),
				   sock_net_uid(net, NULL));
		rt = __ip_route_output_key(net, &fl4);
		if (IS_ERR(rt))
			return PTR_ERR(rt);
		if (rt->rt_type == RTN_LOCAL) {
			ip_rt_put(rt);
			return -ELOOP;
		}
		fl4.flowi4_oif = rt->dst.dev->ifindex;
		dst = xfrm_lookup_route(net, &rt->dst, flowi4_to_flowi(&fl4),
					NULL, 0);
		if (IS_ERR(dst))
			return PTR_ERR(dst);
		stamp_dst_set(r, &key, dst);
	}
	skb_dst_set(skb, dst);

	stamp_udp_csum(skb, rx, false);

	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, sizeof(*iph));
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = rx->reply_dsfield;
	iph->frag_off = 0;
	iph->ttl = ip4_dst_hoplimit(dst);
	iph->protocol = IPPROTO_UDP;
	iph->saddr = rx->daddr.v4;
	iph->daddr = rx->saddr.v4;
	iph->tot_len = htons(skb->len);
	if (!stamp_fits(skb, dst, rx))
		return -EMSGSIZE;
	ip_select_ident(net, skb, NULL);
	skb->protocol = htons(ETH_P_IP);

	err = ip_local_out(net, r->sock->sk, skb);
	return net_xmit_eval(err) ? 0 : 1;
}

/* Note what the reply needs from the headers that are about to go. */
static void stamp_rx_headers(struct sk_buff *skb, struct stamp_rx *rx)
{
	rx->v6 = ip_hdr(skb)->version == 6;
	if (rx->v6) {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		rx->saddr.v6 = ip6h->saddr;
		rx->daddr.v6 = ip6h->daddr;
		rx->ttl = ip6h->hop_limit;
		rx->dsfield = ipv6_get_dsfield(ip6h);
		rx->iif = inet6_iif(skb);
		rx->frag_max = IP6CB(skb)->frag_max_size;
	} else {
		const struct iphdr *iph = ip_hdr(skb);

		rx->saddr.v4 = iph->saddr;
		rx->daddr.v4 = iph->daddr;
		rx->ttl = iph->ttl;
		rx->dsfield = ipv4_get_dsfield(iph);
		rx->iif = inet_iif(skb);
		rx->frag_max = IPCB(skb)->frag_max_size;
	}
	rx->sport = udp_hdr(skb)->source;
	/* Keep the DSCP the sender used, unless a CoS TLV asks otherwise. */
	rx->reply_dsfield = rx->dsfield & ~INET_ECN_MASK;
}

/* Whether the test packet can come from a Session-Sender.  A reply to
 * anything else could go round for ever between reflectors (one spoofed
 * packet from a reflector's own address and port, or another's), reach a
 * service that answers every datagram (echo, chargen: the ports below
 * sport_min), or leave with a multicast source address.
 */
static bool stamp_source_ok(const struct stamp_reflector *r,
			    const struct sk_buff *skb,
			    const struct stamp_rx *rx)
{
	struct net *net = sock_net(r->sock->sk);
	u16 sport = ntohs(rx->sport);
	int type;

	if (skb->pkt_type != PACKET_HOST)
		return false;
	if (sport == r->port || sport < r->sport_min)
		return false;
	if (rx->v6) {
		type = ipv6_addr_type(&rx->saddr.v6);
		if (type == IPV6_ADDR_ANY ||
		    type & (IPV6_ADDR_MULTICAST | IPV6_ADDR_LOOPBACK |
			    IPV6_ADDR_MAPPED))
			return false;
		if (ipv6_addr_is_multicast(&rx->daddr.v6))
			return false;
		/* IPv6 input takes a packet from one of our own addresses. */
		return !ipv6_chk_addr(net, &rx->saddr.v6, NULL, 0);
	}
	if (ipv4_is_multicast(rx->daddr.v4) || ipv4_is_lbcast(rx->daddr.v4) ||
	    inet_addr_type(net, rx->daddr.v4) == RTN_BROADCAST)
		return false;
	return inet_addr_type(net, rx->saddr.v4) == RTN_UNICAST;
}

/* A reflector's reply carries its Receive Timestamp where a Session-Sender
 * sends zeros (RFC 8762 sections 4.2 and 4.3): never answer one, whatever
 * its ports, or two reflectors would answer each other.
 */
static bool stamp_is_reply(const struct stamp_reflector *r, const u8 *p)
{
	unsigned int off = r->auth ? offsetof(struct stamp_refl_auth, rx_ts) :
				     offsetof(struct stamp_refl_unauth, rx_ts);

	return get_unaligned((const u64 *)(p + off)) != 0;
}

/* The headers a reply puts before its UDP header, at most. */
static unsigned int stamp_reply_hlen(const struct stamp_session_cfg *c,
				     const struct stamp_rx *rx)
{
	if (!rx->v6)
		return sizeof(struct iphdr);
	if (IS_ENABLED(CONFIG_IPV6_SEG6_LWTUNNEL) && c && c->srh)
		return sizeof(struct ipv6hdr) +
		       ipv6_optlen((struct ipv6_opt_hdr *)c->srh);
	return sizeof(struct ipv6hdr);
}

/* encap_rcv: skb->data is the UDP header, whose checksum was checked. */
static int stamp_udp_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct stamp_reflector *r = rcu_dereference_sk_user_data(sk);
	const struct stamp_session_cfg *c = NULL;
	struct stamp_session *s = NULL;
	struct crypto_shash *tfm = NULL;
	unsigned int base, len, ssid_off;
	struct stamp_net *sn;
	struct stamp_rx rx;
	int drop, err;
	u8 *p;

	if (!r)
		goto free;

	rx.t2 = stamp_rx_time(skb, &rx.hw_ts);
	stamp_count(r, NULL, STAMP_STAT_RX);
	stamp_rx_headers(skb, &rx);

	drop = STAMP_STAT_DROP_SOURCE;
	if (!stamp_source_ok(r, skb, &rx))
		goto drop;

	drop = STAMP_STAT_DROP_MALFORMED;
	base = r->auth ? STAMP_AUTH_LEN : STAMP_UNAUTH_LEN;
	ssid_off = r->auth ? offsetof(struct stamp_snd_auth, ssid) :
			     offsetof(struct stamp_snd_unauth, ssid);
	if (skb->len < sizeof(struct udphdr) + base ||
	    ntohs(udp_hdr(skb)->len) != skb->len)
		goto drop;
	drop = STAMP_STAT_DROP_XMIT;
	if (!pskb_may_pull(skb, skb->len))
		goto drop;
	p = skb->data + sizeof(struct udphdr);
	len = skb->len - sizeof(struct udphdr);
	drop = STAMP_STAT_DROP_REFLECTED;
	if (stamp_is_reply(r, p))
		goto drop;

	/* No hash of the SSID and the peer where there is no session. */
	sn = stamp_pernet(sock_net(sk));
	if (READ_ONCE(sn->n_sessions))
		s = stamp_session_lookup(sn, get_unaligned_be16(p + ssid_off),
					 &rx);
	if (s) {
		stamp_stat_inc(s->stats, STAMP_STAT_RX);
		/* One configuration for the whole packet, old or new. */
		c = rcu_dereference(s->cfg);
		tfm = c->tfm;
	}
	drop = STAMP_STAT_DROP_NO_SESSION;
	if (!s && (r->auth || r->mode == STAMP_MODE_STATEFUL))
		goto drop;
	/* A keyed session never answers unauthenticated test packets. */
	drop = STAMP_STAT_DROP_AUTH;
	if (s && !tfm != !r->auth)
		goto drop;
	if (r->auth && !stamp_hmac_ok(tfm, p, STAMP_AUTH_HMAC_OFF, NULL, 0,
				      p + STAMP_AUTH_HMAC_OFF))
		goto drop;

	/* The reply is written over the test packet: make it ours, with the
	 * room for the reply's headers, in one copy at most (a clone's
	 * data, or too little headroom, is copied once, not twice).
	 */
	drop = STAMP_STAT_DROP_XMIT;
	if (skb_cow(skb, MAX_HEADER + stamp_reply_hlen(c, &rx)))
		goto drop;
	p = skb->data + sizeof(struct udphdr);

	/* Before anything is rewritten: the CoS TLV's DSCP1 sets the reply's
	 * DSCP, and the HMAC TLV covers the sender's Sequence Number.
	 */
	stamp_tlvs_scan(tfm, r->auth, p, base, len, &rx.tlv);
	if (rx.tlv.cos_dsfield >= 0)
		rx.reply_dsfield = rx.tlv.cos_dsfield;
	stamp_build_reply(r, s, tfm, &rx, p, len);

	/* From here on the skb is the reply. */
	skb_orphan(skb);
	skb_scrub_packet(skb, false);
	skb_set_delivery_time(skb, 0, SKB_CLOCK_REALTIME);
	skb_unset_mac_header(skb);
	memset(skb->cb, 0, sizeof(skb->cb));
	swap(udp_hdr(skb)->source, udp_hdr(skb)->dest);

	/* 1: sent; 0: consumed by a failed ip*_local_out(); < 0: not sent,
	 * -ELOOP as the route would deliver it to this node: the source
	 * address is none of ours, but an anycast address we joined or one
	 * a local route covers, and a local service would get the reply.
	 */
	err = rx.v6 ? stamp_xmit6(r, c, skb, &rx) : stamp_xmit4(r, skb, &rx);
	if (err > 0) {
		stamp_count(r, s, STAMP_STAT_TX);
		return 0;
	}
	drop = err == -ELOOP ? STAMP_STAT_DROP_SOURCE : STAMP_STAT_DROP_XMIT;
	if (!err) {
		stamp_count(r, s, drop);
		return 0;
	}
drop:
	stamp_stat_inc(r->stats, drop);
	if (s)
		stamp_stat_inc(s->stats, drop);
free:
	kfree_skb(skb);
	return 0;
}

/* ------------------------------------------------------------ netlink -- */

static struct genl_family stamp_genl_family;

/* An address given as either of two attributes; family 0 if neither. */
static int stamp_parse_addr(struct genl_info *info, int a4, int a6,
			    union stamp_addr *addr, u8 *family)
{
	struct nlattr **tb = info->attrs;

	*family = 0;
	memset(addr, 0, sizeof(*addr));
	if (tb[a4] && tb[a6]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[a6],
				    "give an IPv4 or an IPv6 address, not both");
		return -EINVAL;
	}
	if (tb[a4]) {
		addr->v4 = nla_get_in_addr(tb[a4]);
		*family = AF_INET;
	} else if (tb[a6]) {
		addr->v6 = nla_get_in6_addr(tb[a6]);
		*family = AF_INET6;
	}
	return 0;
}

static bool stamp_addr_equal(u8 fa, const union stamp_addr *a, u8 fb,
			     const union stamp_addr *b)
{
	if (fa != fb)
		return false;
	if (fa == AF_INET6)
		return ipv6_addr_equal(&a->v6, &b->v6);
	return fa != AF_INET || a->v4 == b->v4;
}

static struct stamp_reflector *stamp_reflector_find(struct stamp_net *sn,
						    u16 port, u8 family,
						    const union stamp_addr *a)
{
	struct stamp_reflector *r;

	list_for_each_entry(r, &sn->reflectors, list)
		if (r->port == port &&
		    stamp_addr_equal(r->family, &r->addr, family, a))
			return r;
	return NULL;
}

/* What a reflector holds but its socket and counters, which a change
 * hands on to the reflector that replaces it.
 */
static int stamp_reflector_init_route(struct stamp_reflector *r)
{
	int err;

	r->dst_key = alloc_percpu_gfp(struct stamp_dst_key, GFP_KERNEL_ACCOUNT);
	if (!r->dst_key)
		return -ENOMEM;
	err = dst_cache_init(&r->dst_cache, GFP_KERNEL_ACCOUNT);
	if (err) {
		free_percpu(r->dst_key);
		r->dst_key = NULL;
	}
	return err;
}

static void stamp_reflector_release(struct stamp_reflector *r)
{
	if (r->dst_key) {
		dst_cache_destroy(&r->dst_cache);
		free_percpu(r->dst_key);
	}
	if (r->early_ts)
		net_disable_timestamp();
	kfree(r);
}

/* Stop @r's socket from handing packets to @r.  encap_rcv may still run
 * on another CPU with @r in hand until a grace period has passed: then
 * stamp_reflector_destroy() may free it.
 */
static void stamp_reflector_unhook(struct stamp_reflector *r)
{
	rcu_assign_sk_user_data(r->sock->sk, NULL);
}

static void stamp_reflector_destroy(struct stamp_reflector *r)
{
	kernel_sock_shutdown(r->sock, SHUT_RDWR);
	sock_release(r->sock);
	free_percpu(r->stats);
	stamp_reflector_release(r);
}

static int stamp_reflector_sock(struct net *net, struct stamp_reflector *r)
{
	struct udp_tunnel_sock_cfg tcfg = {};
	struct udp_port_cfg cfg = {};
	int err;

	cfg.local_udp_port = htons(r->port);
	cfg.use_udp_checksums = 1;
	cfg.use_udp6_tx_checksums = 1;
	cfg.use_udp6_rx_checksums = 1;
	if (r->family == AF_INET) {
		cfg.family = AF_INET;
		cfg.local_ip.s_addr = r->addr.v4;
	} else {
		/* No address: one dual-stack socket answers IPv4 too. */
		cfg.family = AF_INET6;
		cfg.local_ip6 = r->addr.v6;
		cfg.ipv6_v6only = r->family == AF_INET6;
	}
	err = udp_sock_create(net, &cfg, &r->sock);
	if (err)
		return err;

	tcfg.sk_user_data = r;
	tcfg.encap_type = 1;
	tcfg.encap_rcv = stamp_udp_rcv;
	setup_udp_tunnel_sock(net, r->sock, &tcfg);
	r->sock->sk->sk_allocation = GFP_ATOMIC;
	return 0;
}

/* Give the existing reflector @old the configuration of @r, which keeps
 * @old's socket and counters: the receive path holds one reflector from
 * the socket's user data, so it sees the old configuration or the new one,
 * never a mix.  @old is freed by the caller after a grace period.
 */
static void stamp_reflector_replace(struct stamp_reflector *old,
				    struct stamp_reflector *r)
{
	r->sock = old->sock;
	r->stats = old->stats;
	/* Each reflector with early_ts holds one enable, @old's until the
	 * caller releases it.
	 */
	if (r->early_ts)
		net_enable_timestamp();
	list_replace(&old->list, &r->list);
	rcu_assign_sk_user_data(r->sock->sk, r);
}

/* STAMP_CMD_REFLECTOR_ADD: NLM_F_REPLACE gives an existing reflector a new
 * configuration (or, with NLM_F_CREATE, creates it if it is missing);
 * without NLM_F_REPLACE, an existing one is an error.
 */
int stamp_nl_reflector_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct stamp_net *sn = stamp_pernet(genl_info_net(info));
	u16 flags = info->nlhdr->nlmsg_flags;
	struct nlattr **tb = info->attrs;
	struct stamp_reflector *r, *old;
	int err;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	r->port = tb[STAMP_A_PORT] ? nla_get_u16(tb[STAMP_A_PORT]) : STAMP_PORT;
	r->sport_min = tb[STAMP_A_SPORT_MIN] ?
		       nla_get_u16(tb[STAMP_A_SPORT_MIN]) :
		       STAMP_SPORT_MIN_DEFAULT;
	r->mode = tb[STAMP_A_MODE] ? nla_get_u8(tb[STAMP_A_MODE]) :
				     STAMP_MODE_STATELESS;
	r->auth = nla_get_flag(tb[STAMP_A_AUTH]);
	r->early_ts = nla_get_flag(tb[STAMP_A_EARLY_TS]);
	r->err_est = tb[STAMP_A_ERR_EST] ? nla_get_u16(tb[STAMP_A_ERR_EST]) :
					   STAMP_EE_DEFAULT;
	err = -EINVAL;
	if (!(r->err_est & STAMP_EE_MULT_MASK)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[STAMP_A_ERR_EST],
				    "Error Estimate multiplier must not be 0");
		goto free;
	}
	r->err_est &= ~STAMP_EE_Z;
	err = stamp_parse_addr(info, STAMP_A_ADDR4, STAMP_A_ADDR6, &r->addr,
			       &r->family);
	if (err)
		goto free;
	err = stamp_reflector_init_route(r);
	if (err)
		goto free;

	mutex_lock(&sn->lock);
	old = stamp_reflector_find(sn, r->port, r->family, &r->addr);
	if (old) {
		err = -EEXIST;
		if (!(flags & NLM_F_REPLACE) || (flags & NLM_F_EXCL)) {
			NL_SET_ERR_MSG(info->extack, "reflector already exists");
			goto unlock;
		}
		stamp_reflector_replace(old, r);
		mutex_unlock(&sn->lock);
		synchronize_net();
		stamp_reflector_release(old);
		return 0;
	}
	err = -ENOENT;
	if ((flags & NLM_F_REPLACE) && !(flags & NLM_F_CREATE)) {
		NL_SET_ERR_MSG(info->extack, "no such reflector");
		goto unlock;
	}
	err = -ENOSPC;
	if (sn->n_reflectors >= READ_ONCE(reflectors_max)) {
		NL_SET_ERR_MSG_FMT(info->extack,
				   "too many reflectors in this namespace (limit %u)",
				   READ_ONCE(reflectors_max));
		goto unlock;
	}
	err = -ENOMEM;
	r->stats = __netdev_alloc_pcpu_stats(struct stamp_pcpu_stats,
					     GFP_KERNEL_ACCOUNT);
	if (!r->stats)
		goto unlock;
	err = stamp_reflector_sock(genl_info_net(info), r);
	if (err) {
		NL_SET_ERR_MSG(info->extack,
			       "cannot bind the reflector's UDP socket");
		goto unlock;
	}
	if (r->early_ts)
		net_enable_timestamp();
	list_add_tail(&r->list, &sn->reflectors);
	sn->n_reflectors++;
	mutex_unlock(&sn->lock);
	return 0;

unlock:
	mutex_unlock(&sn->lock);
	free_percpu(r->stats);
free:
	/* Not enabled yet: the release must not disable it. */
	r->early_ts = false;
	stamp_reflector_release(r);
	return err;
}

int stamp_nl_reflector_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct stamp_net *sn = stamp_pernet(genl_info_net(info));
	struct nlattr **tb = info->attrs;
	struct stamp_reflector *r;
	union stamp_addr addr;
	u8 family;
	u16 port;
	int err;

	port = tb[STAMP_A_PORT] ? nla_get_u16(tb[STAMP_A_PORT]) : STAMP_PORT;
	err = stamp_parse_addr(info, STAMP_A_ADDR4, STAMP_A_ADDR6, &addr,
			       &family);
	if (err)
		return err;

	mutex_lock(&sn->lock);
	r = stamp_reflector_find(sn, port, family, &addr);
	if (r) {
		list_del(&r->list);
		sn->n_reflectors--;
	}
	mutex_unlock(&sn->lock);
	if (!r) {
		NL_SET_ERR_MSG(info->extack, "no such reflector");
		return -ENOENT;
	}
	stamp_reflector_unhook(r);
	synchronize_net();
	stamp_reflector_destroy(r);
	return 0;
}

static int stamp_put_stats(struct sk_buff *msg,
			   struct stamp_pcpu_stats __percpu *stats)
{
	u64 sum[STAMP_STAT_MAX];
	struct nlattr *nest;
	int i;

	stamp_stats_sum(stats, sum);
	nest = nla_nest_start(msg, STAMP_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < STAMP_STAT_MAX; i++)
		if (nla_put_u64_64bit(msg, stamp_stat_attr[i], sum[i],
				      STAMP_STATS_A_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int stamp_put_addr(struct sk_buff *msg, int a4, int a6, u8 family,
			  const union stamp_addr *addr)
{
	if (family == AF_INET)
		return nla_put_in_addr(msg, a4, addr->v4);
	if (family == AF_INET6)
		return nla_put_in6_addr(msg, a6, &addr->v6);
	return 0;
}

static int stamp_fill_reflector(struct sk_buff *msg, struct stamp_reflector *r,
				u32 portid, u32 seq, int flags)
{
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &stamp_genl_family, flags,
			  STAMP_CMD_REFLECTOR_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u16(msg, STAMP_A_PORT, r->port) ||
	    stamp_put_addr(msg, STAMP_A_ADDR4, STAMP_A_ADDR6, r->family,
			   &r->addr) ||
	    nla_put_u8(msg, STAMP_A_MODE, r->mode) ||
	    (r->auth && nla_put_flag(msg, STAMP_A_AUTH)) ||
	    (r->early_ts && nla_put_flag(msg, STAMP_A_EARLY_TS)) ||
	    nla_put_u16(msg, STAMP_A_ERR_EST, r->err_est) ||
	    nla_put_u16(msg, STAMP_A_SPORT_MIN, r->sport_min) ||
	    stamp_put_stats(msg, r->stats)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

/* A dump stopped by a full message goes on in the next one. */
static int stamp_dump_done(struct sk_buff *skb, int err)
{
	if (!err || (err == -EMSGSIZE && skb->len))
		return skb->len;
	return err;
}

int stamp_nl_reflector_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct stamp_net *sn = stamp_pernet(sock_net(skb->sk));
	struct stamp_reflector *r;
	long idx = 0;
	int err = 0;

	mutex_lock(&sn->lock);
	list_for_each_entry(r, &sn->reflectors, list) {
		if (idx++ < cb->args[0])
			continue;
		err = stamp_fill_reflector(skb, r, NETLINK_CB(cb->skb).portid,
					   cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			break;
		cb->args[0] = idx;
	}
	mutex_unlock(&sn->lock);
	return stamp_dump_done(skb, err);
}

/* Both SRHs of a return path (see struct stamp_session). */
static struct ipv6_sr_hdr *stamp_srh_build(const struct in6_addr *segs,
					   int n)
{
	struct ipv6_sr_hdr *srh;
	int i;

	srh = kzalloc(sizeof(*srh) + (n + 1) * sizeof(struct in6_addr),
		      GFP_KERNEL_ACCOUNT);
	if (!srh)
		return NULL;
	srh->hdrlen = (n + 1) * 2;
	srh->type = IPV6_SRCRT_TYPE_4;
	srh->segments_left = n;
	srh->first_segment = n;
	for (i = 0; i < n; i++)
		srh->segments[n - i] = segs[i];
	return srh;
}

static void stamp_session_cfg_free(struct stamp_session_cfg *c)
{
	if (!c)
		return;
	crypto_free_shash(c->tfm);
	kfree(c->srh);
	kfree(c->srh_short);
	kfree(c);
}

static void stamp_session_free(struct stamp_session *s)
{
	stamp_session_cfg_free(rcu_dereference_protected(s->cfg, true));
	free_percpu(s->stats);
	kfree(s);
	atomic_dec(&stamp_sessions_live);
}

static int stamp_session_key(struct stamp_session_cfg *c,
			     const struct nlattr *a,
			     struct netlink_ext_ack *extack)
{
	struct crypto_shash *tfm;
	int err;

	/* ynl-gen does not render a binary attribute's length range into
	 * the policy: checked here, as the policy would, before anything.
	 */
	if (!nla_len(a) || nla_len(a) > STAMP_KEY_MAX_LEN) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "key is 1 to " __stringify(STAMP_KEY_MAX_LEN)
				    " bytes");
		return -ERANGE;
	}
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm)) {
		NL_SET_ERR_MSG_ATTR(extack, a, "hmac(sha256) is not available");
		return PTR_ERR(tfm);
	}
	err = crypto_shash_setkey(tfm, nla_data(a), nla_len(a));
	if (err) {
		crypto_free_shash(tfm);
		NL_SET_ERR_MSG_ATTR(extack, a, "key rejected by hmac(sha256)");
		return err;
	}
	c->tfm = tfm;
	return 0;
}

static int stamp_session_segs(struct stamp_session_cfg *c, u8 family,
			      const struct nlattr *a,
			      struct netlink_ext_ack *extack)
{
	const struct in6_addr *segs = nla_data(a);
	int n = nla_len(a) / sizeof(*segs);

	/* Length range: see stamp_session_key(). */
	if (nla_len(a) < sizeof(*segs) ||
	    nla_len(a) > STAMP_SEGS_MAX * sizeof(*segs)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "return-segs is 1 to "
				    __stringify(STAMP_SEGS_MAX) " addresses");
		return -ERANGE;
	}
	if (!IS_ENABLED(CONFIG_IPV6_SEG6_LWTUNNEL)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "return-segs needs CONFIG_IPV6_SEG6_LWTUNNEL");
		return -EOPNOTSUPP;
	}
	if (nla_len(a) % sizeof(*segs)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "return-segs is not a list of IPv6 addresses");
		return -EINVAL;
	}
	if (family == AF_INET) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "return-segs needs an IPv6 Session-Sender");
		return -EINVAL;
	}
	/* The SRH makes the reply larger than the test packet: to any
	 * source, that is an amplifier towards whoever the source names.
	 */
	if (!family) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "return-segs needs the session's peer address");
		return -EINVAL;
	}
	c->srh = stamp_srh_build(segs, n);
	if (!c->srh)
		return -ENOMEM;
	if (n > 1) {
		c->srh_short = stamp_srh_build(segs, n - 1);
		if (!c->srh_short)
			return -ENOMEM;
	}
	return 0;
}

/* The return path and key of a session of @family, checked in full. */
static struct stamp_session_cfg *stamp_session_cfg_new(struct genl_info *info,
						       u8 family)
{
	struct nlattr **tb = info->attrs;
	struct stamp_session_cfg *c;
	int err = 0;

	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return ERR_PTR(-ENOMEM);
	if (tb[STAMP_A_SEGS])
		err = stamp_session_segs(c, family, tb[STAMP_A_SEGS],
					 info->extack);
	if (!err && tb[STAMP_A_KEY])
		err = stamp_session_key(c, tb[STAMP_A_KEY], info->extack);
	if (err) {
		stamp_session_cfg_free(c);
		return ERR_PTR(err);
	}
	return c;
}

static struct stamp_session *stamp_session_find(struct stamp_net *sn, u16 ssid,
						u8 family,
						const union stamp_addr *peer)
{
	struct stamp_session *s;

	hash_for_each_possible(sn->sessions, s, node,
			       stamp_session_hash(sn, ssid, family, peer))
		if (s->ssid == ssid &&
		    stamp_addr_equal(s->family, &s->peer, family, peer))
			return s;
	return NULL;
}

/* STAMP_CMD_SESSION_ADD, with the flags of STAMP_CMD_REFLECTOR_ADD.  A
 * change replaces the return path and the key as one; the sequence number
 * and the counters stay.
 */
int stamp_nl_session_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct stamp_net *sn = stamp_pernet(genl_info_net(info));
	u16 flags = info->nlhdr->nlmsg_flags;
	struct stamp_session_cfg *c;
	struct stamp_session *s;
	union stamp_addr peer;
	u8 family;
	u16 ssid;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, STAMP_A_SSID))
		return -EINVAL;
	/* Checked again under the lock; this one spares the allocations. */
	if (!(flags & NLM_F_REPLACE) &&
	    READ_ONCE(sn->n_sessions) >= READ_ONCE(sessions_max))
		goto too_many;
	ssid = nla_get_u16(info->attrs[STAMP_A_SSID]);
	err = stamp_parse_addr(info, STAMP_A_PEER4, STAMP_A_PEER6, &peer,
			       &family);
	if (err)
		return err;
	c = stamp_session_cfg_new(info, family);
	if (IS_ERR(c))
		return PTR_ERR(c);

	mutex_lock(&sn->lock);
	s = stamp_session_find(sn, ssid, family, &peer);
	if (s) {
		err = -EEXIST;
		if (!(flags & NLM_F_REPLACE) || (flags & NLM_F_EXCL)) {
			NL_SET_ERR_MSG(info->extack, "session already exists");
			goto unlock;
		}
		c = rcu_replace_pointer(s->cfg, c, lockdep_is_held(&sn->lock));
		mutex_unlock(&sn->lock);
		synchronize_net();
		stamp_session_cfg_free(c);
		return 0;
	}
	err = -ENOENT;
	if ((flags & NLM_F_REPLACE) && !(flags & NLM_F_CREATE)) {
		NL_SET_ERR_MSG(info->extack, "no such session");
		goto unlock;
	}
	if (sn->n_sessions >= READ_ONCE(sessions_max)) {
		mutex_unlock(&sn->lock);
		stamp_session_cfg_free(c);
		goto too_many;
	}
	err = -ENOMEM;
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		goto unlock;
	s->stats = __netdev_alloc_pcpu_stats(struct stamp_pcpu_stats,
					     GFP_KERNEL_ACCOUNT);
	if (!s->stats) {
		kfree(s);
		goto unlock;
	}
	atomic_inc(&stamp_sessions_live);
	s->ssid = ssid;
	s->family = family;
	s->peer = peer;
	RCU_INIT_POINTER(s->cfg, c);
	hash_add_rcu(sn->sessions, &s->node,
		     stamp_session_hash(sn, s->ssid, s->family, &s->peer));
	WRITE_ONCE(sn->n_sessions, sn->n_sessions + 1);
	mutex_unlock(&sn->lock);
	return 0;

unlock:
	mutex_unlock(&sn->lock);
	stamp_session_cfg_free(c);
	return err;
too_many:
	NL_SET_ERR_MSG_FMT(info->extack,
			   "too many sessions in this namespace (limit %u)",
			   READ_ONCE(sessions_max));
	return -ENOSPC;
}

int stamp_nl_session_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct stamp_net *sn = stamp_pernet(genl_info_net(info));
	struct stamp_session *s;
	union stamp_addr peer;
	u8 family;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, STAMP_A_SSID))
		return -EINVAL;
	err = stamp_parse_addr(info, STAMP_A_PEER4, STAMP_A_PEER6, &peer,
			       &family);
	if (err)
		return err;

	mutex_lock(&sn->lock);
	s = stamp_session_find(sn, nla_get_u16(info->attrs[STAMP_A_SSID]),
			       family, &peer);
	if (s) {
		hash_del_rcu(&s->node);
		WRITE_ONCE(sn->n_sessions, sn->n_sessions - 1);
	}
	mutex_unlock(&sn->lock);
	if (!s) {
		NL_SET_ERR_MSG(info->extack, "no such session");
		return -ENOENT;
	}
	synchronize_net();
	stamp_session_free(s);
	return 0;
}

/* Called with the lock held. */
static int stamp_fill_session(struct sk_buff *msg, struct stamp_session *s,
			      u32 portid, u32 seq, int flags)
{
	const struct stamp_session_cfg *c = rcu_dereference_protected(s->cfg,
								      true);
	const struct ipv6_sr_hdr *srh = c->srh;
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &stamp_genl_family, flags,
			  STAMP_CMD_SESSION_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u16(msg, STAMP_A_SSID, s->ssid) ||
	    stamp_put_addr(msg, STAMP_A_PEER4, STAMP_A_PEER6, s->family,
			   &s->peer) ||
	    (c->tfm && nla_put_flag(msg, STAMP_A_HAS_KEY)) ||
	    nla_put_u32(msg, STAMP_A_SEQ, atomic_read(&s->seq)) ||
	    stamp_put_stats(msg, s->stats))
		goto cancel;
	if (srh) {
		struct in6_addr segs[STAMP_SEGS_MAX];
		int i, n = srh->first_segment;

		/* Back in the order they were given. */
		for (i = 0; i < n; i++)
			segs[i] = srh->segments[n - i];
		if (nla_put(msg, STAMP_A_SEGS, n * sizeof(segs[0]), segs))
			goto cancel;
	}
	genlmsg_end(msg, hdr);
	return 0;

cancel:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}

int stamp_nl_session_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct stamp_net *sn = stamp_pernet(sock_net(skb->sk));
	struct stamp_session *s;
	long idx = 0;
	int bkt, err = 0;

	mutex_lock(&sn->lock);
	hash_for_each(sn->sessions, bkt, s, node) {
		if (idx++ < cb->args[0])
			continue;
		err = stamp_fill_session(skb, s, NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			break;
		cb->args[0] = idx;
	}
	mutex_unlock(&sn->lock);
	return stamp_dump_done(skb, err);
}

static struct genl_family stamp_genl_family __ro_after_init = {
	.name		= STAMP_GENL_NAME,
	.version	= STAMP_GENL_VERSION,
	.maxattr	= ARRAY_SIZE(stamp_nl_policy) - 1,
	.policy		= stamp_nl_policy,
	.netnsok	= true,
	.parallel_ops	= true,
	.small_ops	= stamp_nl_ops,
	.n_small_ops	= ARRAY_SIZE(stamp_nl_ops),
	.resv_start_op	= STAMP_CMD_SESSION_GET + 1,
	.module		= THIS_MODULE,
};

/* ------------------------------------------------------------- pernet -- */

static int __net_init stamp_net_init(struct net *net)
{
	struct stamp_net *sn = stamp_pernet(net);

	mutex_init(&sn->lock);
	INIT_LIST_HEAD(&sn->reflectors);
	sn->seed = get_random_u32();
	hash_init(sn->sessions);
	return 0;
}

/* A dying namespace's reflectors all wait for one grace period: a
 * namespace with the most reflectors allowed, or a batch of many, costs
 * cleanup_net() one synchronize_net(), not one per reflector.
 */
static void __net_exit stamp_net_exit_batch(struct list_head *net_list)
{
	struct stamp_reflector *r, *rtmp;
	struct stamp_session *s;
	struct hlist_node *stmp;
	LIST_HEAD(dead);
	struct net *net;
	int bkt;

	list_for_each_entry(net, net_list, exit_list) {
		struct stamp_net *sn = stamp_pernet(net);

		mutex_lock(&sn->lock);
		list_for_each_entry(r, &sn->reflectors, list)
			stamp_reflector_unhook(r);
		list_splice_init(&sn->reflectors, &dead);
		sn->n_reflectors = 0;
		mutex_unlock(&sn->lock);
	}
	/* Sessions are read only by the reflectors' receive path: after this
	 * grace period nobody reads them or the reflectors.
	 */
	synchronize_net();
	list_for_each_entry_safe(r, rtmp, &dead, list)
		stamp_reflector_destroy(r);
	list_for_each_entry(net, net_list, exit_list) {
		struct stamp_net *sn = stamp_pernet(net);

		mutex_lock(&sn->lock);
		hash_for_each_safe(sn->sessions, bkt, stmp, s, node) {
			hash_del(&s->node);
			stamp_session_free(s);
		}
		sn->n_sessions = 0;
		mutex_unlock(&sn->lock);
	}
}

static struct pernet_operations stamp_net_ops = {
	.init		= stamp_net_init,
	.exit_batch	= stamp_net_exit_batch,
	.id		= &stamp_net_id,
	.size		= sizeof(struct stamp_net),
};

static int __init stamp_init(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct stamp_snd_unauth) != STAMP_UNAUTH_LEN);
	BUILD_BUG_ON(sizeof(struct stamp_refl_unauth) != STAMP_UNAUTH_LEN);
	BUILD_BUG_ON(sizeof(struct stamp_snd_auth) != STAMP_AUTH_LEN);
	BUILD_BUG_ON(sizeof(struct stamp_refl_auth) != STAMP_AUTH_LEN);
	BUILD_BUG_ON(offsetof(struct stamp_refl_auth, hmac) !=
		     STAMP_AUTH_HMAC_OFF);

	err = register_pernet_subsys(&stamp_net_ops);
	if (err)
		return err;
	err = genl_register_family(&stamp_genl_family);
	if (err)
		unregister_pernet_subsys(&stamp_net_ops);
	return err;
}

static void __exit stamp_exit(void)
{
	genl_unregister_family(&stamp_genl_family);
	unregister_pernet_subsys(&stamp_net_ops);
}

module_init(stamp_init);
module_exit(stamp_exit);
MODULE_DESCRIPTION("STAMP Session-Reflector (RFC 8762, RFC 8972)");
MODULE_LICENSE("GPL");
MODULE_ALIAS_GENL_FAMILY(STAMP_GENL_NAME);
