#!/bin/sh
# CONFIGS: profiling debug
# LONG: debug
# TOOLS: stress-ng
# TIMEOUT: 1500
#
# Third-party workloads, each round followed by the accounting audit
# (allocprof-audit: three audits, a site that differs in all three is a
# bug): Debian's stress-ng in its memory, VM, socket and process classes,
# anonymous memory swapped to zram from a small memory cgroup, then
# compacted; KSM merging stress-ng's pages.  Every round's stress-ng must
# succeed, every audit must find no persistent difference, and no
# counter may be negative at the end.  Bounded by operation counts (an
# emulated guest is 10-50 times slower than hardware); --timeout only
# stops a round that hangs.  The main boot runs this in page->flags mode
# in profiling and in page_ext mode in debug (Debian's layout);
# workloads-page-ext.sh runs it in page_ext mode in profiling.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/workloads.sh

ktap_plan "$(workloads_plan)"
workloads_run
