// SPDX-License-Identifier: GPL-2.0
/*
 * STAMP Session-Reflector: the data path.  A reflector socket's encap_rcv
 * turns each test packet into its reply in place and sends it back (see
 * stamp_core.c).
 */

#define pr_fmt(fmt) "stamp: " fmt

#include <linux/skbuff.h>
#include <linux/udp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/timekeeping.h>
#include <crypto/hash.h>
#include <crypto/algapi.h>
#include <crypto/sha2.h>
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
#include <net/altmark.h>
#include <uapi/linux/stamp.h>

#include "stamp.h"

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
#define STAMP_TLV_PLM		252	/* PF-PLM Block, Private Use */

#define STAMP_TLV_TS_INFO_LEN	4
#define STAMP_TLV_COS_LEN	4
#define STAMP_TLV_DM_LEN	12

/* The PF-PLM Block TLV (Documentation/networking/srv6-pfplm.rst): version
 * 1, 16 bytes, is answered by the pfplm daemon of an egress, never here;
 * version 2 asks for a closed block of an Alternate-Marking monitor, which
 * the reflector answers from the kernel's history.
 */
#define STAMP_PLM_V1_LEN	16
#define STAMP_PLM_VERSION	2

struct stamp_plm_block {
	u8	version;
	u8	status;
	u8	colour;
	u8	flags;		/* ALTMARK_BLOCK_FLAGS_* */
	__be32	period_ms;
	__be64	number;
	__be32	flowmon;
	__be32	reserved;
	/* the reply's, zero in the query */
	__be64	packets;
	__be64	bytes;
	__be64	ts_sum;
	__be64	dmark_ns;
} __packed;

enum {
	STAMP_PLM_FOUND,
	STAMP_PLM_NOT_READY,
	STAMP_PLM_NO_COUNT,
	STAMP_PLM_NO_MONITOR,
	STAMP_PLM_MISMATCH,
	STAMP_PLM_TOO_OLD,
	STAMP_PLM_REFUSED,
};

/* Block TLVs answered per test packet; those after them get the M flag. */
#define STAMP_PLM_MAX		8

/* Timestamp Information TLV values (RFC 8972 sections 8.4 and 8.5) */
#define STAMP_SYNC_NTP		1
#define STAMP_SYNC_LOCAL	5
#define STAMP_TSM_HW		1
#define STAMP_TSM_SW		2

#define STAMP_NTP_EPOCH_OFFSET	2208988800ULL	/* 1900 to 1970 */

/* TLVs processed per test packet; those after them get the M flag.  A
 * Session-Sender needs a handful; a 64 KB datagram can carry thousands.
 */
#define STAMP_TLVS_MAX		32

static_assert(sizeof(struct stamp_snd_unauth) == STAMP_UNAUTH_LEN);
static_assert(sizeof(struct stamp_refl_unauth) == STAMP_UNAUTH_LEN);
static_assert(sizeof(struct stamp_snd_auth) == STAMP_AUTH_LEN);
static_assert(sizeof(struct stamp_refl_auth) == STAMP_AUTH_LEN);
static_assert(offsetof(struct stamp_refl_auth, hmac) == STAMP_AUTH_HMAC_OFF);
static_assert(sizeof(struct stamp_plm_block) == 56);

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
	unsigned int		n_plm;		/* Block TLVs answered */
};

static bool stamp_tlv_len_ok(const struct stamp_tlv *t, unsigned int want,
			     bool at_least)
{
	unsigned int len = be16_to_cpu(t->len);

	return at_least ? len >= want : len == want;
}

/* A PF-PLM Block TLV, version 2: the closed block of the monitor of its
 * FlowMonID in the reflector's namespace, or the status that says why
 * not.  It only reads: a query cannot create state, and the reply has the
 * query's length.
 */
static u8 stamp_tlv_plm(struct stamp_tlv_ctx *ctx, const struct stamp_tlv *t,
			u8 *v)
{
	struct stamp_plm_block *q = (void *)v;
	struct altmark_block b;
	u32 period_ms = 0;
	u64 number;
	u8 status;
	int err;

	if (ctx->r->altmark == STAMP_ALTMARK_OFF ||
	    be16_to_cpu(t->len) == STAMP_PLM_V1_LEN)
		return STAMP_TLV_U;
	if (be16_to_cpu(t->len) != sizeof(*q) ||
	    q->version != STAMP_PLM_VERSION ||
	    be32_to_cpu(q->flowmon) > ALTMARK_FLOWMON_MAX ||
	    ctx->n_plm >= STAMP_PLM_MAX)
		return STAMP_TLV_M;
	ctx->n_plm++;

	number = be64_to_cpu(q->number);
	q->flags = 0;
	q->reserved = 0;
	q->packets = 0;
	q->bytes = 0;
	q->ts_sum = 0;
	q->dmark_ns = 0;
	/* peer: only a session that names the Session-Sender's address */
	if (ctx->r->altmark == STAMP_ALTMARK_PEER &&
	    !(ctx->s && ctx->s->family)) {
		q->status = STAMP_PLM_REFUSED;
		stamp_count(ctx->r, ctx->s, STAMP_STAT_ALTMARK_REFUSED);
		return 0;
	}

	err = altmark_block_get(sock_net(ctx->r->sock->sk),
				be32_to_cpu(q->flowmon), number, &b,
				&period_ms);
	if (err != -ENOENT && (period_ms != be32_to_cpu(q->period_ms) ||
			       q->colour != (number & 1)))
		err = -EINVAL;
	switch (err) {
	case 0:
		status = STAMP_PLM_FOUND;
		q->flags = b.flags;
		q->packets = cpu_to_be64(b.packets);
		q->bytes = cpu_to_be64(b.bytes);
		q->ts_sum = cpu_to_be64(b.ts_sum);
		q->dmark_ns = cpu_to_be64(b.dmark_ns);
		stamp_count(ctx->r, ctx->s, STAMP_STAT_ALTMARK_BLOCKS);
		break;
	case -ENOENT:
		status = STAMP_PLM_NO_MONITOR;
		break;
	case -EINVAL:
		status = STAMP_PLM_MISMATCH;
		break;
	case -EAGAIN:
		status = STAMP_PLM_NOT_READY;
		break;
	case -ERANGE:
		status = STAMP_PLM_TOO_OLD;
		break;
	default:
		status = STAMP_PLM_NO_COUNT;
		break;
	}
	q->status = status;
	return 0;
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
	case STAMP_TLV_PLM:
		return stamp_tlv_plm(ctx, t, v);
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
		memset(rep->mbz1, 0, sizeof(rep->mbz1));
		memset(rep->mbz2, 0, sizeof(rep->mbz2));
		memset(rep->mbz3, 0, sizeof(rep->mbz3));
		memset(rep->mbz4, 0, sizeof(rep->mbz4));
		memset(rep->mbz5, 0, sizeof(rep->mbz5));
		memset(rep->mbz6, 0, sizeof(rep->mbz6));
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
int stamp_udp_rcv(struct sock *sk, struct sk_buff *skb)
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
