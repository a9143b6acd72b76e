// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/stamp.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "stamp_nl.h"

#include <uapi/linux/stamp.h>

/* Global operation policy for stamp */
const struct nla_policy stamp_nl_policy[STAMP_A_SPORT_MIN + 1] = {
	[STAMP_A_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[STAMP_A_ADDR4] = { .type = NLA_U32, },
	[STAMP_A_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[STAMP_A_MODE] = NLA_POLICY_MAX(NLA_U8, 1),
	[STAMP_A_AUTH] = { .type = NLA_FLAG, },
	[STAMP_A_ERR_EST] = { .type = NLA_U16, },
	[STAMP_A_SSID] = { .type = NLA_U16, },
	[STAMP_A_PEER4] = { .type = NLA_U32, },
	[STAMP_A_PEER6] = NLA_POLICY_EXACT_LEN(16),
	[STAMP_A_SEGS] = { .type = NLA_BINARY, },
	[STAMP_A_KEY] = { .type = NLA_BINARY, },
	[STAMP_A_EARLY_TS] = { .type = NLA_FLAG, },
	[STAMP_A_SPORT_MIN] = NLA_POLICY_MIN(NLA_U16, 1),
};

/* Ops table for stamp */
const struct genl_small_ops stamp_nl_ops[6] = {
	{
		.cmd	= STAMP_CMD_REFLECTOR_ADD,
		.doit	= stamp_nl_reflector_add_doit,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= STAMP_CMD_REFLECTOR_DEL,
		.doit	= stamp_nl_reflector_del_doit,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= STAMP_CMD_REFLECTOR_GET,
		.dumpit	= stamp_nl_reflector_get_dumpit,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= STAMP_CMD_SESSION_ADD,
		.doit	= stamp_nl_session_add_doit,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= STAMP_CMD_SESSION_DEL,
		.doit	= stamp_nl_session_del_doit,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= STAMP_CMD_SESSION_GET,
		.dumpit	= stamp_nl_session_get_dumpit,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
};
