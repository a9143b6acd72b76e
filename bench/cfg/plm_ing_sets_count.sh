#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PF-PLM, ingress, sets method, counting only, N flows: see plm.sh.
exec bash "$(dirname "$0")/plm.sh" "$1" "$2" ingress sets count "${3:-1}"
