#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# IOAM, mode unused: see ioam.sh.
exec bash "$(dirname "$0")/ioam.sh" "$1" "$2" unused "${3:-1}"
