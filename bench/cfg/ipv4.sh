#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Plain IPv4 forwarding.  ipv4_N: in frames of N bytes (see ipv6.sh).

. "$(dirname "$0")/common.sh"

sut_routes
FRAME_SIZE=${3:-} traffic 4
