/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/stamp.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_STAMP_GEN_H
#define _LINUX_STAMP_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/stamp.h>

int stamp_nl_reflector_add_doit(struct sk_buff *skb, struct genl_info *info);
int stamp_nl_reflector_set_doit(struct sk_buff *skb, struct genl_info *info);
int stamp_nl_reflector_del_doit(struct sk_buff *skb, struct genl_info *info);
int stamp_nl_reflector_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb);
int stamp_nl_session_add_doit(struct sk_buff *skb, struct genl_info *info);
int stamp_nl_session_set_doit(struct sk_buff *skb, struct genl_info *info);
int stamp_nl_session_del_doit(struct sk_buff *skb, struct genl_info *info);
int stamp_nl_session_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);

extern struct genl_family stamp_nl_family;

#endif /* _LINUX_STAMP_GEN_H */
