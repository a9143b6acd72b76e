// SPDX-License-Identifier: GPL-2.0-only
/* Kernel module implementing an IP set type: the hash:sr6 type
 *
 * An element is an SRv6 SID list: the Segment List of a Segment Routing
 * Header (RFC 8754), stored in path order, the first segment first.  The
 * SRH carries its Segment List in reverse, so SID 0 of an element is
 * Segment List[Last Entry] and its last SID is Segment List[0].  Only the
 * SIDs the SRH carries are compared, never the destination address: a
 * flow has the same list at every node of its path.
 */

#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/errno.h>
#include <linux/ipv6.h>
#include <linux/in6.h>
#include <linux/seg6.h>
#include <net/ipv6.h>
#include <net/netlink.h>

#include <linux/netfilter.h>
#include <linux/netfilter/ipset/ip_set.h>
#include <linux/netfilter/ipset/ip_set_hash.h>

#define IPSET_TYPE_REV_MIN	0
#define IPSET_TYPE_REV_MAX	0

MODULE_LICENSE("GPL");
MODULE_AUTHOR("srv6-oam developers <srv6-oam@lists.invalid>");
IP_SET_MODULE_DESC("hash:sr6", IPSET_TYPE_REV_MIN, IPSET_TYPE_REV_MAX);
MODULE_ALIAS("ip_set_hash:sr6");

/* Type specific function prefix */
#define HTYPE		hash_sr6

/* Member elements.  The set has no family (IP_SET_PROTO_UNDEF), and the
 * generator names its single variant "4".  The whole element is the hash
 * key, so the unused SIDs and the reserved bytes must stay zero.
 */
struct hash_sr64_elem {
	u8 count;			/* SIDs in sid[], 1..IPSET_SR6_MAX_SIDS */
	u8 reserved[3];
	struct in6_addr sid[IPSET_SR6_MAX_SIDS];
};

/* Common functions */

static bool
hash_sr64_data_equal(const struct hash_sr64_elem *e1,
		     const struct hash_sr64_elem *e2,
		     u32 *multi)
{
	return e1->count == e2->count &&
	       !memcmp(e1->sid, e2->sid, e1->count * sizeof(e1->sid[0]));
}

static bool
hash_sr64_data_list(struct sk_buff *skb, const struct hash_sr64_elem *e)
{
	if (nla_put(skb, IPSET_ATTR_SID_LIST, e->count * sizeof(e->sid[0]),
		    e->sid))
		goto nla_put_failure;
	return false;

nla_put_failure:
	return true;
}

static void
hash_sr64_data_next(struct hash_sr64_elem *next,
		    const struct hash_sr64_elem *e)
{
}

#define MTYPE		hash_sr64
#define HOST_MASK	128
#define IP_SET_EMIT_CREATE
#define IP_SET_PROTO_UNDEF
#include "ip_set_hash_gen.h"

/* Build the element of an IPv6 packet from its SRH.  A packet without an
 * SRH, or whose SRH is malformed, has none: -EINVAL, which never matches.
 */
static int
hash_sr64_kadt(struct ip_set *set, const struct sk_buff *skb,
	       const struct xt_action_param *par,
	       enum ipset_adt adt, struct ip_set_adt_opt *opt)
{
	ipset_adtfn adtfn = set->variant->adt[adt];
	struct ip_set_ext ext = IP_SET_INIT_KEXT(skb, opt, set);
	const struct ipv6_sr_hdr *srh;
	struct hash_sr64_elem e = { };
	struct ipv6_sr_hdr _srh;
	unsigned int i, n;
	int srhoff = 0;

	BUILD_BUG_ON(sizeof(struct hash_sr64_elem) % sizeof(u32));

	if (opt->family != NFPROTO_IPV6)
		return -EINVAL;
	if (ipv6_find_hdr(skb, &srhoff, IPPROTO_ROUTING, NULL, NULL) < 0)
		return -EINVAL;
	srh = skb_header_pointer(skb, srhoff, sizeof(_srh), &_srh);
	if (!srh || srh->type != IPV6_SRCRT_TYPE_4)
		return -EINVAL;

	/* Last Entry + 1 SIDs, which must fit in the header that carries
	 * them (Hdr Ext Len counts 8-octet units, a SID is two), and
	 * Segments Left may exceed Last Entry by one at most (RFC 8754,
	 * section 4.3.1.1).  A list longer than any element is in no set.
	 */
	n = srh->first_segment + 1;
	if (n > IPSET_SR6_MAX_SIDS || srh->hdrlen < 2 * n ||
	    srh->segments_left > n)
		return -EINVAL;
	if (skb_copy_bits(skb, srhoff + sizeof(*srh), e.sid,
			  n * sizeof(e.sid[0])))
		return -EINVAL;

	/* Segment List[0] is the last segment: reverse into path order */
	for (i = 0; i < n / 2; i++)
		swap(e.sid[i], e.sid[n - 1 - i]);
	e.count = n;

	return adtfn(set, &e, &ext, &opt->ext, opt->cmdflags);
}

static int
hash_sr64_uadt(struct ip_set *set, struct nlattr *tb[],
	       enum ipset_adt adt, u32 *lineno, u32 flags, bool retried)
{
	ipset_adtfn adtfn = set->variant->adt[adt];
	struct ip_set_ext ext = IP_SET_INIT_UEXT(set);
	struct hash_sr64_elem e = { };
	int len, ret;

	if (tb[IPSET_ATTR_LINENO])
		*lineno = nla_get_u32(tb[IPSET_ATTR_LINENO]);

	/* A whole number of SIDs, at least one, at most IPSET_SR6_MAX_SIDS:
	 * a longer list is refused, never truncated.
	 */
	if (unlikely(!tb[IPSET_ATTR_SID_LIST]))
		return -IPSET_ERR_PROTOCOL;
	len = nla_len(tb[IPSET_ATTR_SID_LIST]);
	if (len <= 0 || len > sizeof(e.sid) || len % sizeof(e.sid[0]))
		return -IPSET_ERR_PROTOCOL;

	ret = ip_set_get_extensions(set, tb, &ext);
	if (ret)
		return ret;

	memcpy(e.sid, nla_data(tb[IPSET_ATTR_SID_LIST]), len);
	e.count = len / sizeof(e.sid[0]);

	return adtfn(set, &e, &ext, &ext, flags);
}

static struct ip_set_type hash_sr6_type __read_mostly = {
	.name		= "hash:sr6",
	.protocol	= IPSET_PROTOCOL,
	.features	= 0,
	.dimension	= IPSET_DIM_ONE,
	.family		= NFPROTO_UNSPEC,
	.revision_min	= IPSET_TYPE_REV_MIN,
	.revision_max	= IPSET_TYPE_REV_MAX,
	.create_flags[IPSET_TYPE_REV_MAX] = IPSET_CREATE_FLAG_BUCKETSIZE,
	.create		= hash_sr6_create,
	.create_policy	= {
		[IPSET_ATTR_HASHSIZE]	= { .type = NLA_U32 },
		[IPSET_ATTR_MAXELEM]	= { .type = NLA_U32 },
		[IPSET_ATTR_INITVAL]	= { .type = NLA_U32 },
		[IPSET_ATTR_BUCKETSIZE]	= { .type = NLA_U8 },
		[IPSET_ATTR_RESIZE]	= { .type = NLA_U8  },
		[IPSET_ATTR_TIMEOUT]	= { .type = NLA_U32 },
		[IPSET_ATTR_CADT_FLAGS]	= { .type = NLA_U32 },
	},
	.adt_policy	= {
		[IPSET_ATTR_SID_LIST]	= { .type = NLA_BINARY,
					    .len  = IPSET_SR6_MAX_SIDS *
						    sizeof(struct in6_addr) },
		[IPSET_ATTR_TIMEOUT]	= { .type = NLA_U32 },
		[IPSET_ATTR_LINENO]	= { .type = NLA_U32 },
		[IPSET_ATTR_BYTES]	= { .type = NLA_U64 },
		[IPSET_ATTR_PACKETS]	= { .type = NLA_U64 },
		[IPSET_ATTR_COMMENT]	= { .type = NLA_NUL_STRING,
					    .len  = IPSET_MAX_COMMENT_SIZE },
		[IPSET_ATTR_SKBMARK]	= { .type = NLA_U64 },
		[IPSET_ATTR_SKBPRIO]	= { .type = NLA_U32 },
		[IPSET_ATTR_SKBQUEUE]	= { .type = NLA_U16 },
	},
	.me		= THIS_MODULE,
};

static int __init
hash_sr6_init(void)
{
	return ip_set_type_register(&hash_sr6_type);
}

static void __exit
hash_sr6_fini(void)
{
	rcu_barrier();
	ip_set_type_unregister(&hash_sr6_type);
}

module_init(hash_sr6_init);
module_exit(hash_sr6_fini);
