#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PF-PLM ingress, parts of its state: chains (see plm_parts.sh).
exec bash "$(dirname "$0")/plm_parts.sh" "$1" "$2" chains
