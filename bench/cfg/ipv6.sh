#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Plain IPv6 forwarding: the baseline.

. "$(dirname "$0")/common.sh"

sut_routes
traffic 6
