/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/altmark.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_ALTMARK_GEN_H
#define _LINUX_ALTMARK_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/altmark.h>

int altmark_nl_monitor_add_doit(struct sk_buff *skb, struct genl_info *info);
int altmark_nl_monitor_del_doit(struct sk_buff *skb, struct genl_info *info);
int altmark_nl_monitor_get_doit(struct sk_buff *skb, struct genl_info *info);
int altmark_nl_monitor_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb);

extern struct genl_family altmark_nl_family;

#endif /* _LINUX_ALTMARK_GEN_H */
