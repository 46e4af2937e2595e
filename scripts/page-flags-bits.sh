#!/bin/bash
# How many bits of page->flags a built kernel leaves free, and how many tag
# indices fit in them (what allocation profiling's compressed page
# references can use).
#
#   page-flags-bits.sh OUT_DIR
#
# OUT_DIR is a configured and built O= directory of a 6.1 tree (with or
# without the series). Builds a probe object as an external module against
# it: the layout constants as absolute symbols, read back with nm.
# Prints "free_bits=N nr_pageflags=N used_above=N capacity=N".
. "$(dirname "$0")/lib.sh"

OUT=${1:?usage: page-flags-bits.sh OUT_DIR}
[[ -f $OUT/Makefile && -f $OUT/include/generated/bounds.h ]] ||
	die "$(show_path "$OUT") is not a built kernel O= directory"

PROBE=$(mktemp -d)
trap 'rm -rf "$PROBE"' EXIT

cat >"$PROBE/probe.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/mm.h>

/*
 * The constants become absolute symbols (LRU_REFS_WIDTH uses min(), which
 * is a constant expression only inside a function).
 */
void probe(void)
{
	asm volatile(".globl probe_free_bits\n.set probe_free_bits, %c0\n"
		     ".globl probe_nr_pageflags\n.set probe_nr_pageflags, %c1\n"
		     : : "i" (LRU_REFS_PGOFF - NR_PAGEFLAGS), "i" (NR_PAGEFLAGS));
}
MODULE_LICENSE("GPL");
EOF
echo 'obj-m := probe.o' >"$PROBE/Kbuild"

KARCH=$(out_arch "$OUT")
CROSS=$(arch_cross "$KARCH")
make -s -C "$OUT" M="$PROBE" ARCH="$KARCH" CROSS_COMPILE="$CROSS" modules >"$PROBE/build.log" 2>&1 || {
	cat "$PROBE/build.log" >&2
	die "the page flags probe does not build against $(show_path "$OUT")"
}

size_of() {
	local hex
	hex=$("${CROSS}nm" "$PROBE/probe.o" | awk -v s="$1" '$3 == s { print $1 }')
	[[ -n $hex ]] && echo $((16#$hex))
}

free=$(size_of probe_free_bits)
nrf=$(size_of probe_nr_pageflags)
[[ -n $free && -n $nrf ]] || die "cannot read the probe's symbols"
# The index field takes at most 32 bits (struct alloc_tag's u32 ref_idx).
width=$((free < 32 ? free : 32))
long=64
[[ $KARCH == i386 ]] && long=32
echo "free_bits=$free nr_pageflags=$nrf used_above=$((long - free - nrf)) capacity=$(((1 << width) - 1))"
