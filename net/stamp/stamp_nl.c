// SPDX-License-Identifier: GPL-2.0
/*
 * STAMP Session-Reflector: the generic netlink family's handlers (the
 * policies and the operations table are generated, stamp_nl_gen.c).
 */

#define pr_fmt(fmt) "stamp: " fmt

#include <crypto/hash.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/seg6.h>
#include <uapi/linux/stamp.h>

#include "stamp.h"
#include "stamp_nl_gen.h"

/* Each statistic's attribute in a stats nest. */
static const u16 stamp_stat_attr[STAMP_STAT_MAX] = {
	[STAMP_STAT_RX]			= STAMP_A_STATS_RX,
	[STAMP_STAT_TX]			= STAMP_A_STATS_TX,
	[STAMP_STAT_DROP_MALFORMED]	= STAMP_A_STATS_DROP_MALFORMED,
	[STAMP_STAT_DROP_AUTH]		= STAMP_A_STATS_DROP_AUTH,
	[STAMP_STAT_DROP_NO_SESSION]	= STAMP_A_STATS_DROP_NO_SESSION,
	[STAMP_STAT_DROP_XMIT]		= STAMP_A_STATS_DROP_XMIT,
	[STAMP_STAT_TLV_MALFORMED]	= STAMP_A_STATS_TLV_MALFORMED,
	[STAMP_STAT_TLV_UNKNOWN]	= STAMP_A_STATS_TLV_UNKNOWN,
	[STAMP_STAT_DROP_SOURCE]	= STAMP_A_STATS_DROP_SOURCE,
	[STAMP_STAT_DROP_REFLECTED]	= STAMP_A_STATS_DROP_REFLECTED,
	[STAMP_STAT_TLV_LIMIT]		= STAMP_A_STATS_TLV_LIMIT,
	[STAMP_STAT_ALTMARK_BLOCKS]	= STAMP_A_STATS_ALTMARK_BLOCKS,
	[STAMP_STAT_ALTMARK_REFUSED]	= STAMP_A_STATS_ALTMARK_REFUSED,
};

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

/* The reflector a request names: its port, STAMP_PORT if it names none,
 * and its local address, if any.
 */
static int stamp_reflector_key(struct genl_info *info, u16 *port,
			       u8 *family, union stamp_addr *addr)
{
	struct nlattr *a = info->attrs[STAMP_A_REFLECTOR_PORT];

	*port = a ? nla_get_u16(a) : STAMP_PORT;
	return stamp_parse_addr(info, STAMP_A_REFLECTOR_ADDR4,
				STAMP_A_REFLECTOR_ADDR6, addr, family);
}

/* STAMP_CMD_REFLECTOR_ADD (@set false) creates a reflector, one of the
 * same port and address is an error; STAMP_CMD_REFLECTOR_SET (@set true)
 * gives an existing one the configuration of the request, in whole.
 */
static int stamp_reflector_add_set(struct genl_info *info, bool set)
{
	struct stamp_net *sn = stamp_pernet(genl_info_net(info));
	struct nlattr **tb = info->attrs;
	struct stamp_reflector *r, *old;
	int err;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	err = stamp_reflector_key(info, &r->port, &r->family, &r->addr);
	if (err)
		goto free;
	r->sport_min = tb[STAMP_A_REFLECTOR_SPORT_MIN] ?
		       nla_get_u16(tb[STAMP_A_REFLECTOR_SPORT_MIN]) :
		       STAMP_SPORT_MIN_DEFAULT;
	r->mode = tb[STAMP_A_REFLECTOR_MODE] ?
		  nla_get_u8(tb[STAMP_A_REFLECTOR_MODE]) : STAMP_MODE_STATELESS;
	r->auth = nla_get_flag(tb[STAMP_A_REFLECTOR_AUTH]);
	r->early_ts = nla_get_flag(tb[STAMP_A_REFLECTOR_EARLY_TS]);
	r->err_est = tb[STAMP_A_REFLECTOR_ERR_EST] ?
		     nla_get_u16(tb[STAMP_A_REFLECTOR_ERR_EST]) :
		     STAMP_EE_DEFAULT;
	err = -EINVAL;
	if (!(r->err_est & STAMP_EE_MULT_MASK)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[STAMP_A_REFLECTOR_ERR_EST],
				    "Error Estimate multiplier must not be 0");
		goto free;
	}
	r->err_est &= ~STAMP_EE_Z;
	r->altmark = tb[STAMP_A_REFLECTOR_ALTMARK] ?
		     nla_get_u8(tb[STAMP_A_REFLECTOR_ALTMARK]) :
		     STAMP_ALTMARK_OFF;
	err = -EOPNOTSUPP;
	if (!IS_ENABLED(CONFIG_IPV6_ALTMARK) &&
	    r->altmark != STAMP_ALTMARK_OFF) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[STAMP_A_REFLECTOR_ALTMARK],
				    "altmark needs CONFIG_IPV6_ALTMARK");
		goto free;
	}
	err = stamp_reflector_init_route(r);
	if (err)
		goto free;

	mutex_lock(&sn->lock);
	old = stamp_reflector_find(sn, r->port, r->family, &r->addr);
	if (old) {
		err = -EEXIST;
		if (!set) {
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
	if (set) {
		NL_SET_ERR_MSG(info->extack, "no such reflector");
		goto unlock;
	}
	err = -ENOSPC;
	if (sn->n_reflectors >= READ_ONCE(stamp_reflectors_max)) {
		NL_SET_ERR_MSG_FMT(info->extack,
				   "too many reflectors in this namespace (limit %u)",
				   READ_ONCE(stamp_reflectors_max));
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

int stamp_nl_reflector_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	return stamp_reflector_add_set(info, false);
}

int stamp_nl_reflector_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	return stamp_reflector_add_set(info, true);
}

int stamp_nl_reflector_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct stamp_net *sn = stamp_pernet(genl_info_net(info));
	struct stamp_reflector *r;
	union stamp_addr addr;
	u8 family;
	u16 port;
	int err;

	err = stamp_reflector_key(info, &port, &family, &addr);
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

static int stamp_put_stats(struct sk_buff *msg, int attr,
			   struct stamp_pcpu_stats __percpu *stats)
{
	u64 sum[STAMP_STAT_MAX];
	struct nlattr *nest;
	int i;

	stamp_stats_sum(stats, sum);
	nest = nla_nest_start(msg, attr);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < STAMP_STAT_MAX; i++)
		if (nla_put_u64_64bit(msg, stamp_stat_attr[i], sum[i],
				      STAMP_A_STATS_PAD))
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

	hdr = genlmsg_put(msg, portid, seq, &stamp_nl_family, flags,
			  STAMP_CMD_REFLECTOR_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u16(msg, STAMP_A_REFLECTOR_PORT, r->port) ||
	    stamp_put_addr(msg, STAMP_A_REFLECTOR_ADDR4,
			   STAMP_A_REFLECTOR_ADDR6, r->family, &r->addr) ||
	    nla_put_u8(msg, STAMP_A_REFLECTOR_MODE, r->mode) ||
	    (r->auth && nla_put_flag(msg, STAMP_A_REFLECTOR_AUTH)) ||
	    (r->early_ts && nla_put_flag(msg, STAMP_A_REFLECTOR_EARLY_TS)) ||
	    nla_put_u16(msg, STAMP_A_REFLECTOR_ERR_EST, r->err_est) ||
	    nla_put_u16(msg, STAMP_A_REFLECTOR_SPORT_MIN, r->sport_min) ||
	    nla_put_u8(msg, STAMP_A_REFLECTOR_ALTMARK, r->altmark) ||
	    stamp_put_stats(msg, STAMP_A_REFLECTOR_STATS, r->stats)) {
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
	if (tb[STAMP_A_SESSION_SEGS])
		err = stamp_session_segs(c, family, tb[STAMP_A_SESSION_SEGS],
					 info->extack);
	if (!err && tb[STAMP_A_SESSION_KEY])
		err = stamp_session_key(c, tb[STAMP_A_SESSION_KEY],
					info->extack);
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

/* STAMP_CMD_SESSION_ADD (@set false) and STAMP_CMD_SESSION_SET (@set
 * true), as for reflectors.  A set replaces the return path and the key as
 * one; the sequence number and the counters stay.
 */
static int stamp_session_add_set(struct genl_info *info, bool set)
{
	struct stamp_net *sn = stamp_pernet(genl_info_net(info));
	struct stamp_session_cfg *c;
	struct stamp_session *s;
	union stamp_addr peer;
	u8 family;
	u16 ssid;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, STAMP_A_SESSION_SSID))
		return -EINVAL;
	/* Checked again under the lock; this one spares the allocations. */
	if (!set && READ_ONCE(sn->n_sessions) >= READ_ONCE(stamp_sessions_max))
		goto too_many;
	ssid = nla_get_u16(info->attrs[STAMP_A_SESSION_SSID]);
	err = stamp_parse_addr(info, STAMP_A_SESSION_PEER4,
			       STAMP_A_SESSION_PEER6, &peer, &family);
	if (err)
		return err;
	c = stamp_session_cfg_new(info, family);
	if (IS_ERR(c))
		return PTR_ERR(c);

	mutex_lock(&sn->lock);
	s = stamp_session_find(sn, ssid, family, &peer);
	if (s) {
		err = -EEXIST;
		if (!set) {
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
	if (set) {
		NL_SET_ERR_MSG(info->extack, "no such session");
		goto unlock;
	}
	if (sn->n_sessions >= READ_ONCE(stamp_sessions_max)) {
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
			   READ_ONCE(stamp_sessions_max));
	return -ENOSPC;
}

int stamp_nl_session_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	return stamp_session_add_set(info, false);
}

int stamp_nl_session_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	return stamp_session_add_set(info, true);
}

int stamp_nl_session_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct stamp_net *sn = stamp_pernet(genl_info_net(info));
	struct stamp_session *s;
	union stamp_addr peer;
	u8 family;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, STAMP_A_SESSION_SSID))
		return -EINVAL;
	err = stamp_parse_addr(info, STAMP_A_SESSION_PEER4,
			       STAMP_A_SESSION_PEER6, &peer, &family);
	if (err)
		return err;

	mutex_lock(&sn->lock);
	s = stamp_session_find(sn, nla_get_u16(info->attrs[STAMP_A_SESSION_SSID]),
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

	hdr = genlmsg_put(msg, portid, seq, &stamp_nl_family, flags,
			  STAMP_CMD_SESSION_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u16(msg, STAMP_A_SESSION_SSID, s->ssid) ||
	    stamp_put_addr(msg, STAMP_A_SESSION_PEER4, STAMP_A_SESSION_PEER6,
			   s->family, &s->peer) ||
	    (c->tfm && nla_put_flag(msg, STAMP_A_SESSION_HAS_KEY)) ||
	    nla_put_u32(msg, STAMP_A_SESSION_SEQ, atomic_read(&s->seq)) ||
	    stamp_put_stats(msg, STAMP_A_SESSION_STATS, s->stats))
		goto cancel;
	if (srh) {
		struct in6_addr segs[STAMP_SEGS_MAX];
		int i, n = srh->first_segment;

		/* Back in the order they were given. */
		for (i = 0; i < n; i++)
			segs[i] = srh->segments[n - i];
		if (nla_put(msg, STAMP_A_SESSION_SEGS, n * sizeof(segs[0]), segs))
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
