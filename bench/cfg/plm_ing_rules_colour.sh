#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PF-PLM, ingress, rules method, counting and colouring, N flows: see plm.sh.
exec bash "$(dirname "$0")/plm.sh" "$1" "$2" ingress rules colour "${3:-1}"
