#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PF-PLM, egress, no monitoring (End.DT6 alone): see plm.sh.
exec bash "$(dirname "$0")/plm.sh" "$1" "$2" egress off
