#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=compressed
#
# A malformed value boots, warns once and falls back to the Kconfig default
# (enabled in these configs).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

ktap_plan 4
ktap_check "malformed 'compressed': warned once" malformed_warnings 1
ktap_check "malformed 'compressed': default state (1)" sysctl_is 1
ktap_check "malformed 'compressed': page_ext reserved" page_ext_allocated
ktap_check "malformed 'compressed': no sysctl.* boot errors" no_sysctl_arg_errors
