// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/altmark.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "altmark_nl_gen.h"

#include <uapi/linux/altmark.h>

/* Integer value ranges */
static struct netlink_range_validation altmark_a_monitor_flowmon_range = {
	.max	= ALTMARK_FLOWMON_MAX,
};

/* ALTMARK_CMD_MONITOR_ADD - do */
static const struct nla_policy altmark_monitor_add_nl_policy[ALTMARK_A_MONITOR_HISTORY + 1] = {
	[ALTMARK_A_MONITOR_FLOWMON] = NLA_POLICY_FULL_RANGE(NLA_U32, &altmark_a_monitor_flowmon_range),
	[ALTMARK_A_MONITOR_HISTORY] = NLA_POLICY_RANGE(NLA_U32, 2, ALTMARK_HISTORY_MAX),
};

/* ALTMARK_CMD_MONITOR_DEL - do */
static const struct nla_policy altmark_monitor_del_nl_policy[ALTMARK_A_MONITOR_FLOWMON + 1] = {
	[ALTMARK_A_MONITOR_FLOWMON] = NLA_POLICY_FULL_RANGE(NLA_U32, &altmark_a_monitor_flowmon_range),
};

/* ALTMARK_CMD_MONITOR_GET - do */
static const struct nla_policy altmark_monitor_get_nl_policy[ALTMARK_A_MONITOR_FLOWMON + 1] = {
	[ALTMARK_A_MONITOR_FLOWMON] = NLA_POLICY_FULL_RANGE(NLA_U32, &altmark_a_monitor_flowmon_range),
};

/* Ops table for altmark */
static const struct genl_ops altmark_nl_ops[] = {
	{
		.cmd		= ALTMARK_CMD_MONITOR_ADD,
		.doit		= altmark_nl_monitor_add_doit,
		.policy		= altmark_monitor_add_nl_policy,
		.maxattr	= ALTMARK_A_MONITOR_HISTORY,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= ALTMARK_CMD_MONITOR_DEL,
		.doit		= altmark_nl_monitor_del_doit,
		.policy		= altmark_monitor_del_nl_policy,
		.maxattr	= ALTMARK_A_MONITOR_FLOWMON,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= ALTMARK_CMD_MONITOR_GET,
		.doit		= altmark_nl_monitor_get_doit,
		.dumpit		= altmark_nl_monitor_get_dumpit,
		.policy		= altmark_monitor_get_nl_policy,
		.maxattr	= ALTMARK_A_MONITOR_FLOWMON,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
};

struct genl_family altmark_nl_family __ro_after_init = {
	.name		= ALTMARK_FAMILY_NAME,
	.version	= ALTMARK_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= altmark_nl_ops,
	.n_ops		= ARRAY_SIZE(altmark_nl_ops),
};
