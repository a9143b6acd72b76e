#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The baseline of stamp_share: the same IPv4 traffic to 100000 addresses,
# forwarded, with no STAMP reflector configured.
exec bash "$(dirname "$0")/stamp_share.sh" "$1" "$2" none
