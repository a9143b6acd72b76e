// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/stamp.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "stamp_nl_gen.h"

#include <uapi/linux/stamp.h>

/* STAMP_CMD_REFLECTOR_ADD - do */
static const struct nla_policy stamp_reflector_add_nl_policy[STAMP_A_REFLECTOR_ALTMARK + 1] = {
	[STAMP_A_REFLECTOR_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[STAMP_A_REFLECTOR_ADDR4] = { .type = NLA_U32, },
	[STAMP_A_REFLECTOR_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[STAMP_A_REFLECTOR_MODE] = NLA_POLICY_MAX(NLA_U8, 1),
	[STAMP_A_REFLECTOR_AUTH] = { .type = NLA_FLAG, },
	[STAMP_A_REFLECTOR_ERR_EST] = { .type = NLA_U16, },
	[STAMP_A_REFLECTOR_EARLY_TS] = { .type = NLA_FLAG, },
	[STAMP_A_REFLECTOR_SPORT_MIN] = NLA_POLICY_MIN(NLA_U16, 1),
	[STAMP_A_REFLECTOR_ALTMARK] = NLA_POLICY_MAX(NLA_U8, 2),
};

/* STAMP_CMD_REFLECTOR_SET - do */
static const struct nla_policy stamp_reflector_set_nl_policy[STAMP_A_REFLECTOR_ALTMARK + 1] = {
	[STAMP_A_REFLECTOR_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[STAMP_A_REFLECTOR_ADDR4] = { .type = NLA_U32, },
	[STAMP_A_REFLECTOR_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[STAMP_A_REFLECTOR_MODE] = NLA_POLICY_MAX(NLA_U8, 1),
	[STAMP_A_REFLECTOR_AUTH] = { .type = NLA_FLAG, },
	[STAMP_A_REFLECTOR_ERR_EST] = { .type = NLA_U16, },
	[STAMP_A_REFLECTOR_EARLY_TS] = { .type = NLA_FLAG, },
	[STAMP_A_REFLECTOR_SPORT_MIN] = NLA_POLICY_MIN(NLA_U16, 1),
	[STAMP_A_REFLECTOR_ALTMARK] = NLA_POLICY_MAX(NLA_U8, 2),
};

/* STAMP_CMD_REFLECTOR_DEL - do */
static const struct nla_policy stamp_reflector_del_nl_policy[STAMP_A_REFLECTOR_ADDR6 + 1] = {
	[STAMP_A_REFLECTOR_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[STAMP_A_REFLECTOR_ADDR4] = { .type = NLA_U32, },
	[STAMP_A_REFLECTOR_ADDR6] = NLA_POLICY_EXACT_LEN(16),
};

/* STAMP_CMD_SESSION_ADD - do */
static const struct nla_policy stamp_session_add_nl_policy[STAMP_A_SESSION_KEY + 1] = {
	[STAMP_A_SESSION_SSID] = { .type = NLA_U16, },
	[STAMP_A_SESSION_PEER4] = { .type = NLA_U32, },
	[STAMP_A_SESSION_PEER6] = NLA_POLICY_EXACT_LEN(16),
	[STAMP_A_SESSION_SEGS] = { .type = NLA_BINARY, },
	[STAMP_A_SESSION_KEY] = { .type = NLA_BINARY, },
};

/* STAMP_CMD_SESSION_SET - do */
static const struct nla_policy stamp_session_set_nl_policy[STAMP_A_SESSION_KEY + 1] = {
	[STAMP_A_SESSION_SSID] = { .type = NLA_U16, },
	[STAMP_A_SESSION_PEER4] = { .type = NLA_U32, },
	[STAMP_A_SESSION_PEER6] = NLA_POLICY_EXACT_LEN(16),
	[STAMP_A_SESSION_SEGS] = { .type = NLA_BINARY, },
	[STAMP_A_SESSION_KEY] = { .type = NLA_BINARY, },
};

/* STAMP_CMD_SESSION_DEL - do */
static const struct nla_policy stamp_session_del_nl_policy[STAMP_A_SESSION_PEER6 + 1] = {
	[STAMP_A_SESSION_SSID] = { .type = NLA_U16, },
	[STAMP_A_SESSION_PEER4] = { .type = NLA_U32, },
	[STAMP_A_SESSION_PEER6] = NLA_POLICY_EXACT_LEN(16),
};

/* Ops table for stamp */
static const struct genl_ops stamp_nl_ops[] = {
	{
		.cmd		= STAMP_CMD_REFLECTOR_ADD,
		.doit		= stamp_nl_reflector_add_doit,
		.policy		= stamp_reflector_add_nl_policy,
		.maxattr	= STAMP_A_REFLECTOR_ALTMARK,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= STAMP_CMD_REFLECTOR_SET,
		.doit		= stamp_nl_reflector_set_doit,
		.policy		= stamp_reflector_set_nl_policy,
		.maxattr	= STAMP_A_REFLECTOR_ALTMARK,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= STAMP_CMD_REFLECTOR_DEL,
		.doit		= stamp_nl_reflector_del_doit,
		.policy		= stamp_reflector_del_nl_policy,
		.maxattr	= STAMP_A_REFLECTOR_ADDR6,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= STAMP_CMD_REFLECTOR_GET,
		.dumpit	= stamp_nl_reflector_get_dumpit,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= STAMP_CMD_SESSION_ADD,
		.doit		= stamp_nl_session_add_doit,
		.policy		= stamp_session_add_nl_policy,
		.maxattr	= STAMP_A_SESSION_KEY,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= STAMP_CMD_SESSION_SET,
		.doit		= stamp_nl_session_set_doit,
		.policy		= stamp_session_set_nl_policy,
		.maxattr	= STAMP_A_SESSION_KEY,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= STAMP_CMD_SESSION_DEL,
		.doit		= stamp_nl_session_del_doit,
		.policy		= stamp_session_del_nl_policy,
		.maxattr	= STAMP_A_SESSION_PEER6,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= STAMP_CMD_SESSION_GET,
		.dumpit	= stamp_nl_session_get_dumpit,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
};

struct genl_family stamp_nl_family __ro_after_init = {
	.name		= STAMP_FAMILY_NAME,
	.version	= STAMP_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= stamp_nl_ops,
	.n_ops		= ARRAY_SIZE(stamp_nl_ops),
};
