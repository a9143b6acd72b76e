#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# IOAM, mode e2e: see ioam.sh.
exec bash "$(dirname "$0")/ioam.sh" "$1" "$2" e2e "${3:-1}"
