// SPDX-License-Identifier: GPL-2.0
/*
 * IPv6 Alternate-Marking (RFC 9343, RFC 9341): per-FlowMonID monitors
 * that count marked packets per colour, and the closed blocks the kernel
 * keeps of them.
 *
 * The colour is a function of time: period n is [n * T, (n + 1) * T) on
 * CLOCK_TAI, T per network namespace, and its colour (the L flag) is
 * n mod 2.  The ingress colours and counts a packet in one step; the other
 * nodes count it by the colour it carries.  A guard time G after each
 * period's end, when the late packets of that period have arrived and
 * before the next period of its colour begins, the counters of its colour
 * are closed into the monitor's history as block n.
 */

#include <linux/kernel.h>
#include <linux/ipv6.h>
#include <linux/hash.h>
#include <linux/jump_label.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/tcp.h>
#include <linux/timekeeping.h>
#include <linux/udp.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/addrconf.h>
#include <net/altmark.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "altmark_nl_gen.h"

#define ALTMARK_MONITORS_MAX	16384
/* The receive path's table: 4 monitors a bucket at most on average */
#define ALTMARK_HASH_BITS	12
#define ALTMARK_PERIOD_MS_MIN	100
#define ALTMARK_PERIOD_MS_MAX	60000
#define ALTMARK_PERIOD_MS_DEF	10000
#define ALTMARK_GUARD_MS_DEF	2500

/* Options scanned in one Destination Options header before giving up, as
 * ip6_parse_tlv() bounds them by default.
 */
#define ALTMARK_SCAN_OPTS_MAX	8

DEFINE_STATIC_KEY_FALSE(altmark_rx_key);

struct altmark_pcpu {
	u64_stats_t packets[2];
	u64_stats_t bytes[2];
	u64_stats_t ts_sum[2];
	struct u64_stats_sync syncp;
};

struct altmark_mon {
	struct hlist_node node;		/* in altmark_net.hash */
	u32 flowmon;
	u64 period_ns;
	struct altmark_pcpu __percpu *pcpu;
	/* per colour: the block whose double-marked packet was counted,
	 * and when (the next block's D packet comes before this one closes)
	 */
	atomic64_t dmark_number[2];
	u64 dmark_ns[2];

	/* closing, under altmark_net.lock */
	u64 created;
	u64 closed[2];
	u64 sum_packets[2];
	u64 sum_bytes[2];
	u64 sum_ts[2];
	unsigned int history;
	/* the ring of closed blocks: written under altmark_net.lock and
	 * ring_lock, read under either (altmark_block_get() in softirq)
	 */
	seqlock_t ring_lock;
	unsigned int head;
	unsigned int count;

	/* the namespace's, and each route's that counts into it */
	refcount_t ref;
	bool dead;
	struct rcu_head rcu;
	struct altmark_block blocks[];
};

struct altmark_hash {
	struct hlist_head heads[1 << ALTMARK_HASH_BITS];
};

struct altmark_net {
	struct net *net;
	struct xarray mons;		/* FlowMonID -> altmark_mon, RCU */
	/* the same monitors, RCU, for the receive path: a bucket is one
	 * multiplication and one load away where the xarray walks its
	 * nodes; allocated with the first monitor
	 */
	struct altmark_hash __rcu *hash;
	struct mutex lock;		/* monitors, history, sysctls */
	unsigned int count;
	u32 period_ms;
	u32 guard_ms;
	u64 period_ns;			/* READ_ONCE: the data path's */
	struct delayed_work close_work;
	struct ctl_table_header *sysctl;
};

static unsigned int altmark_net_id __read_mostly;

static struct altmark_net *altmark_pernet(struct net *net)
{
	return net_generic(net, altmark_net_id);
}

static void altmark_mon_free_rcu(struct rcu_head *head)
{
	struct altmark_mon *mon = container_of(head, struct altmark_mon, rcu);

	free_percpu(mon->pcpu);
	kfree(mon);
}

static void altmark_mon_put(struct altmark_mon *mon)
{
	if (refcount_dec_and_test(&mon->ref))
		call_rcu(&mon->rcu, altmark_mon_free_rcu);
}

/* A deleted monitor: freed once the routes that count into it have let
 * it go, which they do at their next packet.
 */
static void altmark_mon_free(struct altmark_mon *mon)
{
	static_branch_dec(&altmark_rx_key);
	WRITE_ONCE(mon->dead, true);
	altmark_mon_put(mon);
}

/* The packets an skb is sent as, and their bytes: one, or the segments of
 * a GSO packet, each with the headers up to its transport header's end.
 */
static unsigned int altmark_skb_packets(const struct sk_buff *skb,
					unsigned int *len)
{
	const struct skb_shared_info *shinfo = skb_shinfo(skb);
	bool tcp = shinfo->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6);
	unsigned int segs, hdr;

	*len = skb->len;
	if (!skb_is_gso(skb) || shinfo->gso_segs == 1)
		return 1;

	if (skb->encapsulation) {
		hdr = skb_inner_transport_offset(skb);
		if (tcp)
			hdr += inner_tcp_hdrlen(skb);
	} else {
		hdr = skb_transport_offset(skb);
		if (tcp)
			hdr += tcp_hdrlen(skb);
	}
	if (shinfo->gso_type & SKB_GSO_UDP_L4)
		hdr += sizeof(struct udphdr);
	/* an untrusted source's (SKB_GSO_DODGY) may not say */
	segs = shinfo->gso_segs;
	if (!segs && shinfo->gso_size && skb->len > hdr)
		segs = DIV_ROUND_UP(skb->len - hdr, shinfo->gso_size);
	if (segs <= 1)
		return 1;
	*len += (segs - 1) * hdr;
	return segs;
}

/* Count a packet of colour c at @off ns into its block. */
static void altmark_count(struct altmark_mon *mon, unsigned int c,
			  unsigned int packets, unsigned int len, u64 off)
{
	struct altmark_pcpu *p;
	unsigned long flags;

	p = get_cpu_ptr(mon->pcpu);
	flags = u64_stats_update_begin_irqsave(&p->syncp);
	u64_stats_add(&p->packets[c], packets);
	u64_stats_add(&p->bytes[c], len);
	u64_stats_add(&p->ts_sum[c], off * packets);
	u64_stats_update_end_irqrestore(&p->syncp, flags);
	put_cpu_ptr(mon->pcpu);
}

/* The first packet of block n with the D flag: when it was counted. */
static bool altmark_dmark(struct altmark_mon *mon, u64 n, u64 off)
{
	atomic64_t *number = &mon->dmark_number[n & 1];
	s64 old = atomic64_read(number);

	if (old == n || !atomic64_try_cmpxchg(number, &old, n))
		return false;
	WRITE_ONCE(mon->dmark_ns[n & 1], off);
	return true;
}

/* The route's monitor, looked up again once the one it had is deleted:
 * the route holds a reference to it, so that the lookup is not made per
 * packet.
 */
static noinline struct altmark_mon *
altmark_tx_lookup(struct altmark_net *an, u32 flowmon,
		  struct altmark_mon __rcu **cache)
{
	struct altmark_mon *mon, *old;

	mon = xa_load(&an->mons, flowmon);
	if (mon && !refcount_inc_not_zero(&mon->ref))
		mon = NULL;
	if (!mon && !rcu_access_pointer(*cache))
		return NULL;

	old = unrcu_pointer(xchg(cache, RCU_INITIALIZER(mon)));
	if (old)
		altmark_mon_put(old);
	return mon;
}

/**
 * altmark_tx_release - drop a route's reference to its monitor
 * @cache: the route's monitor, as altmark_tx() keeps it
 */
void altmark_tx_release(struct altmark_mon __rcu **cache)
{
	struct altmark_mon *mon = unrcu_pointer(xchg(cache, NULL));

	if (mon)
		altmark_mon_put(mon);
}

/**
 * altmark_tx - colour a packet at the ingress, and count it
 * @net: the namespace of the route
 * @skb: the packet, with the option, its IPv6 header at skb->data
 * @flowmon: the route's FlowMonID
 * @delay: double-mark one packet per block (the D flag)
 * @cache: the route's monitor, kept here; altmark_tx_release() drops it
 *
 * Return: the option's data word (FlowMonID, L, D), network order.
 */
__be32 altmark_tx(struct net *net, const struct sk_buff *skb, u32 flowmon,
		  bool delay, struct altmark_mon __rcu **cache)
{
	struct altmark_net *an = altmark_pernet(net);
	u64 now = ktime_get_clocktai_ns();
	u32 word = flowmon << ALTMARK_FLOWMON_SHIFT;
	struct altmark_mon *mon;
	u64 period, n, off;
	unsigned int c;

	period = READ_ONCE(an->period_ns);
	n = div64_u64(now, period);
	off = now - n * period;
	c = n & 1;
	if (c)
		word |= ALTMARK_L;

	rcu_read_lock();
	mon = rcu_dereference(*cache);
	if (unlikely(!mon || READ_ONCE(mon->dead)))
		mon = altmark_tx_lookup(an, flowmon, cache);
	if (mon) {
		unsigned int packets, len;

		packets = altmark_skb_packets(skb, &len);
		/* not on a GSO packet: each segment would carry it */
		if (delay && packets == 1 && altmark_dmark(mon, n, off))
			word |= ALTMARK_D;
		altmark_count(mon, c, packets, len, off);
	}
	rcu_read_unlock();

	return htonl(word);
}

static struct altmark_mon *altmark_rx_lookup(const struct altmark_net *an,
					     u32 flowmon)
{
	const struct altmark_hash *h = rcu_dereference(an->hash);
	const struct hlist_head *head;
	struct altmark_mon *mon;

	if (unlikely(!h))
		return NULL;
	head = &h->heads[hash_32(flowmon, ALTMARK_HASH_BITS)];
	hlist_for_each_entry_rcu(mon, head, node) {
		if (mon->flowmon == flowmon)
			return mon;
	}
	return NULL;
}

/* Count a received option's packet: the block it belongs to is the
 * latest period of its colour.
 */
static void altmark_rx(struct net *net, const struct sk_buff *skb,
		       __be32 data)
{
	struct altmark_net *an = altmark_pernet(net);
	u32 word = ntohl(data);
	unsigned int c, packets, len;
	struct altmark_mon *mon;
	u64 now, n, off;

	rcu_read_lock();
	mon = altmark_rx_lookup(an, word >> ALTMARK_FLOWMON_SHIFT);
	if (!mon)
		goto out;

	c = !!(word & ALTMARK_L);
	now = ktime_get_clocktai_ns();
	n = div64_u64(now, mon->period_ns);
	if ((n & 1) != c && n)
		n--;
	off = now - n * mon->period_ns;
	if (word & ALTMARK_D)
		altmark_dmark(mon, n, off);
	packets = altmark_skb_packets(skb, &len);
	/* the bytes from the IPv6 header on, wherever the caller's data is */
	if (skb_network_offset(skb) < 0)
		len += packets * -skb_network_offset(skb);
	altmark_count(mon, c, packets, len, off);
out:
	rcu_read_unlock();
}

/* The header the ingress writes: 8 octets, the option alone. */
static bool altmark_opt_alone(const u8 *p, __be32 *data)
{
	if (p[1] || p[2] != IPV6_TLV_ALTMARK || p[3] != ALTMARK_OPT_LEN)
		return false;
	memcpy(data, p + 4, sizeof(*data));
	return true;
}

/* Find the AltMark option of the Hop-by-Hop or Destination Options
 * header at @off: 1 with its data word in @data, 0 if it has none, an
 * error if it has several or the header is malformed (an option past the
 * header's end, more than 7 bytes of padding in a row, more than
 * ALTMARK_SCAN_OPTS_MAX options), so that only a well-formed header is
 * counted.
 */
static int altmark_find_opt(const struct sk_buff *skb, unsigned int off,
			    __be32 *data)
{
	u8 buf[ALTMARK_HDR_LEN], *p;
	unsigned int len, i, opts = 0, pad = 0;
	int found = 0;

	p = skb_header_pointer(skb, off, sizeof(buf), buf);
	if (!p)
		return -EINVAL;
	if (altmark_opt_alone(p, data))
		return 1;
	len = (p[1] + 1) << 3;

	for (i = 2; i < len;) {
		u8 hdr[2], *h;

		h = skb_header_pointer(skb, off + i, 1, hdr);
		if (!h)
			return -EINVAL;
		if (h[0] == IPV6_TLV_PAD1) {
			if (++pad > 7)
				return -EINVAL;
			i++;
			continue;
		}
		h = skb_header_pointer(skb, off + i, 2, hdr);
		if (!h || i + 2 + h[1] > len)
			return -EINVAL;
		if (h[0] == IPV6_TLV_PADN) {
			pad += h[1] + 2;
			if (pad > 7)
				return -EINVAL;
		} else {
			pad = 0;
			if (++opts > ALTMARK_SCAN_OPTS_MAX)
				return -EINVAL;
			if (h[0] == IPV6_TLV_ALTMARK) {
				if (h[1] != ALTMARK_OPT_LEN || found)
					return -EINVAL;
				if (skb_copy_bits(skb, off + i + 2, data,
						  sizeof(*data)))
					return -EINVAL;
				found = 1;
			}
		}
		i += 2 + h[1];
	}
	return found;
}

/**
 * altmark_seg6_rcv - count the option of a packet at an SRv6 endpoint
 * @skb: the packet, its IPv6 header at the network header
 *
 * An option in a Destination Options header before the routing header is
 * for every segment endpoint, one after it for the final destination: the
 * endpoint counts the first always, the second when no segment is left.
 * seg6local runs before the stack parses the headers after the
 * Hop-by-Hop one, so the endpoint behaviours count here.
 */
void altmark_seg6_rcv(struct sk_buff *skb)
{
	unsigned int off = skb_network_offset(skb) + sizeof(struct ipv6hdr);
	bool after_rh = false, last = false;
	u8 nexthdr = ipv6_hdr(skb)->nexthdr;
	int hdrs;

	for (hdrs = 0; hdrs < 4; hdrs++) {
		u8 buf[ALTMARK_HDR_LEN], *h;	/* no header is shorter */
		__be32 data;

		h = skb_header_pointer(skb, off, sizeof(buf), buf);
		if (!h)
			return;

		switch (nexthdr) {
		case NEXTHDR_HOP:
			break;
		case NEXTHDR_ROUTING:
			if (h[2] != IPV6_SRCRT_TYPE_4)
				return;
			after_rh = true;
			last = !h[3];	/* Segments Left */
			break;
		case NEXTHDR_DEST:
			if (after_rh && !last)
				return;
			/* one count per packet, whatever else it carries */
			if (altmark_opt_alone(h, &data) ||
			    altmark_find_opt(skb, off, &data) == 1) {
				altmark_rx(dev_net(skb->dev), skb, data);
				return;
			}
			if (after_rh)
				return;
			break;
		default:
			return;
		}
		nexthdr = h[0];
		off += (h[1] + 1) << 3;
	}
}

/**
 * altmark_opts_rcv - count the option of a header the IPv6 layer parses
 * @skb: the packet, the options header at its transport header
 * @hop: a Hop-by-Hop header, else a Destination Options one
 *
 * Every node on the path reads a Hop-by-Hop option; a node counts it where
 * the packet came in on an interface with altmark_enabled set, as
 * ioam6_enabled does for IOAM, so that a domain counts only what entered
 * it.  The IPv6 layer parses a Destination Options header where the packet
 * is addressed to the node: one before the routing header at a segment
 * endpoint that the kernel's own SRH processing serves (seg6local's count
 * in altmark_seg6_rcv() and never get here), one after it at the final
 * destination.  ip6_parse_tlv() calls this for each AltMark option of the
 * header: the header is read whole, so that one with several of them,
 * like a malformed one, is counted nowhere.
 */
void altmark_opts_rcv(struct sk_buff *skb, bool hop)
{
	__be32 data;

	if (hop) {
		struct inet6_dev *idev = __in6_dev_get(skb->dev);

		if (!idev || !READ_ONCE(idev->cnf.altmark_enabled))
			return;
	}
	if (altmark_find_opt(skb, skb_transport_offset(skb), &data) == 1)
		altmark_rx(dev_net(skb->dev), skb, data);
}

static u64 altmark_now_block(const struct altmark_net *an)
{
	return div64_u64(ktime_get_clocktai_ns(), an->period_ns);
}

/* Close block n of every monitor: the counters of its colour less what
 * they were when the block before it of that colour closed.
 */
static void altmark_close(struct altmark_net *an, u64 n, u64 now)
{
	unsigned int c = n & 1;
	struct altmark_mon *mon;
	unsigned long id;

	lockdep_assert_held(&an->lock);

	xa_for_each(&an->mons, id, mon) {
		u64 packets = 0, bytes = 0, ts = 0;
		struct altmark_block *b;
		int cpu;

		for_each_possible_cpu(cpu) {
			const struct altmark_pcpu *p = per_cpu_ptr(mon->pcpu, cpu);
			u64 pk, by, t;
			unsigned int start;

			do {
				start = u64_stats_fetch_begin(&p->syncp);
				pk = u64_stats_read(&p->packets[c]);
				by = u64_stats_read(&p->bytes[c]);
				t = u64_stats_read(&p->ts_sum[c]);
			} while (u64_stats_fetch_retry(&p->syncp, start));
			packets += pk;
			bytes += by;
			ts += t;
		}

		cond_resched();
		write_seqlock_bh(&mon->ring_lock);
		b = &mon->blocks[(mon->head + mon->count) % mon->history];
		if (mon->count < mon->history)
			mon->count++;
		else
			mon->head = (mon->head + 1) % mon->history;

		b->number = n;
		b->packets = packets - mon->sum_packets[c];
		b->bytes = bytes - mon->sum_bytes[c];
		b->ts_sum = ts - mon->sum_ts[c];
		b->flags = 0;
		b->dmark_ns = 0;
		if (n <= mon->created + 1)
			b->flags |= ALTMARK_BLOCK_FLAGS_PARTIAL;
		else if (mon->closed[c] != n - 2 ||
			 now >= (n + 2) * mon->period_ns)
			b->flags |= ALTMARK_BLOCK_FLAGS_UNSURE;
		if (atomic64_read(&mon->dmark_number[c]) == n) {
			b->flags |= ALTMARK_BLOCK_FLAGS_DMARK;
			b->dmark_ns = READ_ONCE(mon->dmark_ns[c]);
		}
		write_sequnlock_bh(&mon->ring_lock);

		mon->closed[c] = n;
		mon->sum_packets[c] = packets;
		mon->sum_bytes[c] = bytes;
		mon->sum_ts[c] = ts;
	}
}

/* Arm the work for the next closing time: G after the current period. */
static void altmark_close_arm(struct altmark_net *an)
{
	u64 guard = (u64)an->guard_ms * NSEC_PER_MSEC;
	u64 now = ktime_get_clocktai_ns();
	u64 at;

	at = (div64_u64(now - min(now, guard), an->period_ns) + 1) *
	     an->period_ns + guard;
	queue_delayed_work(system_power_efficient_wq, &an->close_work,
			   nsecs_to_jiffies(at - now) + 1);
}

static void altmark_close_work(struct work_struct *work)
{
	struct altmark_net *an = container_of(to_delayed_work(work),
					      struct altmark_net, close_work);
	u64 guard, now, n;

	mutex_lock(&an->lock);
	if (!an->count)
		goto out;

	guard = (u64)an->guard_ms * NSEC_PER_MSEC;
	now = ktime_get_clocktai_ns();
	/* the last block whose guard time has passed */
	n = div64_u64(now - min(now, guard), an->period_ns);
	if (n)
		altmark_close(an, n - 1, now);
	altmark_close_arm(an);
out:
	mutex_unlock(&an->lock);
}

int altmark_nl_monitor_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct altmark_net *an = altmark_pernet(genl_info_net(info));
	unsigned int history = ALTMARK_HISTORY_DEFAULT;
	struct altmark_hash *hash;
	struct altmark_mon *mon;
	u32 flowmon;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, ALTMARK_A_MONITOR_FLOWMON))
		return -EINVAL;
	flowmon = nla_get_u32(info->attrs[ALTMARK_A_MONITOR_FLOWMON]);
	if (info->attrs[ALTMARK_A_MONITOR_HISTORY])
		history = nla_get_u32(info->attrs[ALTMARK_A_MONITOR_HISTORY]);

	mon = kzalloc(struct_size(mon, blocks, history), GFP_KERNEL_ACCOUNT);
	if (!mon)
		return -ENOMEM;
	mon->pcpu = alloc_percpu_gfp(struct altmark_pcpu, GFP_KERNEL_ACCOUNT);
	if (!mon->pcpu) {
		kfree(mon);
		return -ENOMEM;
	}
	mon->flowmon = flowmon;
	mon->history = history;
	seqlock_init(&mon->ring_lock);
	refcount_set(&mon->ref, 1);
	atomic64_set(&mon->dmark_number[0], -1);
	atomic64_set(&mon->dmark_number[1], -1);

	mutex_lock(&an->lock);
	if (an->count >= ALTMARK_MONITORS_MAX) {
		NL_SET_ERR_MSG_FMT(info->extack,
				   "too many monitors (at most %u per namespace)",
				   ALTMARK_MONITORS_MAX);
		err = -ENOSPC;
		goto err_unlock;
	}
	mon->period_ns = an->period_ns;
	mon->created = altmark_now_block(an);
	mon->closed[0] = U64_MAX;
	mon->closed[1] = U64_MAX;

	hash = rcu_dereference_protected(an->hash,
					 lockdep_is_held(&an->lock));
	if (!hash) {
		hash = kvzalloc(sizeof(*hash), GFP_KERNEL_ACCOUNT);
		if (!hash) {
			err = -ENOMEM;
			goto err_unlock;
		}
		rcu_assign_pointer(an->hash, hash);
	}
	err = xa_insert(&an->mons, flowmon, mon, GFP_KERNEL_ACCOUNT);
	if (err) {
		if (err == -EBUSY) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[ALTMARK_A_MONITOR_FLOWMON],
					    "the FlowMonID has a monitor");
			err = -EEXIST;
		}
		goto err_unlock;
	}
	hlist_add_head_rcu(&mon->node,
			   &hash->heads[hash_32(flowmon, ALTMARK_HASH_BITS)]);
	static_branch_inc(&altmark_rx_key);
	if (!an->count++)
		altmark_close_arm(an);
	mutex_unlock(&an->lock);
	return 0;

err_unlock:
	mutex_unlock(&an->lock);
	free_percpu(mon->pcpu);
	kfree(mon);
	return err;
}

int altmark_nl_monitor_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct altmark_net *an = altmark_pernet(genl_info_net(info));
	struct altmark_mon *mon;

	if (GENL_REQ_ATTR_CHECK(info, ALTMARK_A_MONITOR_FLOWMON))
		return -EINVAL;

	mutex_lock(&an->lock);
	mon = xa_erase(&an->mons,
		       nla_get_u32(info->attrs[ALTMARK_A_MONITOR_FLOWMON]));
	if (mon) {
		hlist_del_rcu(&mon->node);
		an->count--;
	}
	mutex_unlock(&an->lock);

	if (!mon) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[ALTMARK_A_MONITOR_FLOWMON],
				    "no monitor of this FlowMonID");
		return -ENOENT;
	}
	altmark_mon_free(mon);
	return 0;
}

static int altmark_put_counters(struct sk_buff *skb,
				const struct altmark_mon *mon)
{
	unsigned int c;

	for (c = 0; c < 2; c++) {
		u64 packets = 0, bytes = 0;
		struct nlattr *nest;
		int cpu;

		for_each_possible_cpu(cpu) {
			const struct altmark_pcpu *p = per_cpu_ptr(mon->pcpu, cpu);
			unsigned int start;
			u64 pk, by;

			do {
				start = u64_stats_fetch_begin(&p->syncp);
				pk = u64_stats_read(&p->packets[c]);
				by = u64_stats_read(&p->bytes[c]);
			} while (u64_stats_fetch_retry(&p->syncp, start));
			packets += pk;
			bytes += by;
		}

		nest = nla_nest_start(skb, ALTMARK_A_MONITOR_COUNTERS);
		if (!nest ||
		    nla_put_u32(skb, ALTMARK_A_COUNTERS_COLOUR, c) ||
		    nla_put_u64_64bit(skb, ALTMARK_A_COUNTERS_PACKETS, packets,
				      ALTMARK_A_COUNTERS_PAD) ||
		    nla_put_u64_64bit(skb, ALTMARK_A_COUNTERS_BYTES, bytes,
				      ALTMARK_A_COUNTERS_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int altmark_put_block(struct sk_buff *skb, const struct altmark_block *b)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, ALTMARK_A_MONITOR_BLOCK);
	if (!nest ||
	    nla_put_u64_64bit(skb, ALTMARK_A_BLOCK_NUMBER, b->number,
			      ALTMARK_A_BLOCK_PAD) ||
	    nla_put_u64_64bit(skb, ALTMARK_A_BLOCK_PACKETS, b->packets,
			      ALTMARK_A_BLOCK_PAD) ||
	    nla_put_u64_64bit(skb, ALTMARK_A_BLOCK_BYTES, b->bytes,
			      ALTMARK_A_BLOCK_PAD) ||
	    nla_put_u64_64bit(skb, ALTMARK_A_BLOCK_TS_SUM, b->ts_sum,
			      ALTMARK_A_BLOCK_PAD) ||
	    ((b->flags & ALTMARK_BLOCK_FLAGS_DMARK) &&
	     nla_put_u64_64bit(skb, ALTMARK_A_BLOCK_DMARK_NS, b->dmark_ns,
			       ALTMARK_A_BLOCK_PAD)) ||
	    nla_put_u32(skb, ALTMARK_A_BLOCK_FLAGS, b->flags))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* Called with an->lock held: the history does not move under it. */
static int altmark_fill(struct sk_buff *skb, const struct altmark_net *an,
			const struct altmark_mon *mon, u32 portid, u32 seq,
			int flags)
{
	unsigned int i;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &altmark_nl_family, flags,
			  ALTMARK_CMD_MONITOR_GET);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(skb, ALTMARK_A_MONITOR_FLOWMON, mon->flowmon) ||
	    nla_put_u32(skb, ALTMARK_A_MONITOR_HISTORY, mon->history) ||
	    nla_put_u32(skb, ALTMARK_A_MONITOR_PERIOD_MS, an->period_ms) ||
	    altmark_put_counters(skb, mon))
		goto cancel;
	for (i = 0; i < mon->count; i++)
		if (altmark_put_block(skb, &mon->blocks[(mon->head + i) %
							  mon->history]))
			goto cancel;

	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int altmark_nl_monitor_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct altmark_net *an = altmark_pernet(genl_info_net(info));
	struct altmark_mon *mon;
	struct sk_buff *msg;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, ALTMARK_A_MONITOR_FLOWMON))
		return -EINVAL;

	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&an->lock);
	mon = xa_load(&an->mons,
		      nla_get_u32(info->attrs[ALTMARK_A_MONITOR_FLOWMON]));
	if (!mon) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[ALTMARK_A_MONITOR_FLOWMON],
				    "no monitor of this FlowMonID");
		err = -ENOENT;
	} else {
		err = altmark_fill(msg, an, mon, info->snd_portid,
				   info->snd_seq, 0);
	}
	mutex_unlock(&an->lock);

	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

int altmark_nl_monitor_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct altmark_net *an = altmark_pernet(sock_net(skb->sk));
	unsigned long id = cb->args[0];
	struct altmark_mon *mon;
	int err = 0;

	mutex_lock(&an->lock);
	xa_for_each_start(&an->mons, id, mon, id) {
		err = altmark_fill(skb, an, mon, NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			break;
	}
	mutex_unlock(&an->lock);
	cb->args[0] = id;

	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err;
}

/* Find block @number in the ring: its index from the oldest, or the
 * error altmark_block_get() returns.
 */
static int altmark_ring_find(const struct altmark_mon *mon, u64 number,
			     u64 now_block, struct altmark_block *b)
{
	unsigned int i, count = min(mon->count, mon->history);
	const struct altmark_block *first, *last;

	if (number > now_block + 1)
		return -EINVAL;
	if (count) {
		first = &mon->blocks[mon->head % mon->history];
		last = &mon->blocks[(mon->head + count - 1) % mon->history];
		if (number < first->number)
			return number < mon->created ? -ENODATA : -ERANGE;
		if (number <= last->number) {
			for (i = 0; i < count; i++) {
				const struct altmark_block *x;

				x = &mon->blocks[(mon->head + i) % mon->history];
				if (x->number == number) {
					*b = *x;
					return 0;
				}
			}
			return -ENODATA;
		}
	}
	/* Block n closes at (n + 1) * T + G, in period n + 1. */
	if (number + 1 >= now_block)
		return -EAGAIN;
	return -ENODATA;
}

/**
 * altmark_block_get - read a closed block of a monitor, from any context
 * @net: the monitor's namespace
 * @flowmon: its FlowMonID
 * @number: the block's number
 * @b: the block, filled when 0 is returned
 * @period_ms: the monitor's period T in milliseconds, filled when a
 *	monitor of @flowmon exists
 *
 * It only reads, and takes no lock a softirq cannot: the STAMP reflector
 * answers queries with it.
 *
 * Return: 0; -ENOENT: no monitor of @flowmon; -EINVAL: @number is a
 * future block; -EAGAIN: the block is not closed yet; -ERANGE: it is older
 * than the history; -ENODATA: there is no count of it (the monitor was
 * created after it, or its closing was skipped).
 */
int altmark_block_get(struct net *net, u32 flowmon, u64 number,
		      struct altmark_block *b, u32 *period_ms)
{
	struct altmark_mon *mon;
	unsigned int seq;
	u64 now_block;
	int err;

	if (flowmon > ALTMARK_FLOWMON_MAX)
		return -ENOENT;

	rcu_read_lock();
	mon = xa_load(&altmark_pernet(net)->mons, flowmon);
	if (!mon || READ_ONCE(mon->dead)) {
		err = -ENOENT;
		goto out;
	}
	/* fixed while the monitor exists */
	*period_ms = div_u64(mon->period_ns, NSEC_PER_MSEC);
	now_block = div64_u64(ktime_get_clocktai_ns(), mon->period_ns);
	do {
		seq = read_seqbegin(&mon->ring_lock);
		err = altmark_ring_find(mon, number, now_block, b);
	} while (read_seqretry(&mon->ring_lock, seq));
out:
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_GPL(altmark_block_get);

/* net.ipv6.altmark.period_ms and guard_ms: G at most T / 2, and neither
 * changes while the namespace has monitors, whose blocks would no longer
 * be those of the other nodes.
 */
static int altmark_sysctl_handler(const struct ctl_table *table, int write,
				  void *buffer, size_t *lenp, loff_t *ppos)
{
	struct altmark_net *an = table->extra2;
	struct ctl_table tmp = *table;
	u32 val, *field = table->data;
	int err;

	mutex_lock(&an->lock);
	val = *field;
	tmp.data = &val;
	tmp.extra2 = NULL;
	err = proc_douintvec(&tmp, write, buffer, lenp, ppos);
	if (err || !write)
		goto out;

	if (field == &an->period_ms &&
	    (val < ALTMARK_PERIOD_MS_MIN || val > ALTMARK_PERIOD_MS_MAX ||
	     an->guard_ms > val / 2))
		err = -EINVAL;
	else if (field == &an->guard_ms && val > an->period_ms / 2)
		err = -EINVAL;
	else if (val != *field && an->count)
		err = -EBUSY;
	if (err)
		goto out;

	*field = val;
	WRITE_ONCE(an->period_ns, (u64)an->period_ms * NSEC_PER_MSEC);
out:
	mutex_unlock(&an->lock);
	return err;
}

static const struct ctl_table altmark_sysctl_template[] = {
	{
		.procname	= "period_ms",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= altmark_sysctl_handler,
	},
	{
		.procname	= "guard_ms",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= altmark_sysctl_handler,
	},
};

static int __net_init altmark_net_init(struct net *net)
{
	struct altmark_net *an = altmark_pernet(net);
	struct ctl_table *table;

	an->net = net;
	xa_init(&an->mons);
	mutex_init(&an->lock);
	an->period_ms = ALTMARK_PERIOD_MS_DEF;
	an->guard_ms = ALTMARK_GUARD_MS_DEF;
	an->period_ns = (u64)an->period_ms * NSEC_PER_MSEC;
	INIT_DELAYED_WORK(&an->close_work, altmark_close_work);

	table = kmemdup(altmark_sysctl_template,
			sizeof(altmark_sysctl_template), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	table[0].data = &an->period_ms;
	table[0].extra2 = an;
	table[1].data = &an->guard_ms;
	table[1].extra2 = an;

	an->sysctl = register_net_sysctl_sz(net, "net/ipv6/altmark", table,
					    ARRAY_SIZE(altmark_sysctl_template));
	if (!an->sysctl) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit altmark_net_exit(struct net *net)
{
	struct altmark_net *an = altmark_pernet(net);
	const struct ctl_table *table = an->sysctl->ctl_table_arg;
	struct altmark_hash *hash;
	struct altmark_mon *mon;
	unsigned long id;

	unregister_net_sysctl_table(an->sysctl);
	kfree(table);

	mutex_lock(&an->lock);
	xa_for_each(&an->mons, id, mon) {
		xa_erase(&an->mons, id);
		hlist_del_rcu(&mon->node);
		altmark_mon_free(mon);
	}
	an->count = 0;
	hash = rcu_replace_pointer(an->hash, NULL, lockdep_is_held(&an->lock));
	mutex_unlock(&an->lock);
	cancel_delayed_work_sync(&an->close_work);
	xa_destroy(&an->mons);
	kvfree_rcu_mightsleep(hash);
}

static struct pernet_operations altmark_net_ops = {
	.init	= altmark_net_init,
	.exit	= altmark_net_exit,
	.id	= &altmark_net_id,
	.size	= sizeof(struct altmark_net),
};

int __init altmark_init(void)
{
	int err;

	err = register_pernet_subsys(&altmark_net_ops);
	if (err)
		return err;

	err = genl_register_family(&altmark_nl_family);
	if (err)
		unregister_pernet_subsys(&altmark_net_ops);
	return err;
}

void altmark_exit(void)
{
	genl_unregister_family(&altmark_nl_family);
	unregister_pernet_subsys(&altmark_net_ops);
	rcu_barrier();
}
