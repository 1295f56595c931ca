#!/bin/sh
# make install and make uninstall, from the built tree ($BUILD up to date:
# nothing is rebuilt, nothing is written into the source tree):
# - PREFIX=$T/prefix: the tools, libtracesmith.so.1 with its headers and
#   lib/pkgconfig/tracesmith.pc, the man pages, the docs, the layer;
# - a program built with `pkg-config --cflags --libs tracesmith` against the
#   installed library reads a trace and counts what tsinfo counts;
# - each man page renders without a groff warning (man -l), one per tool,
#   and `man` finds them under PREFIX/share/man;
# - the installed docs name no ../shared file and no test that is not there;
# - vulkaninfo with the installed share/ in XDG_DATA_DIRS (and with
#   VK_LAYER_PATH at its explicit_layer.d) lists VK_LAYER_tracesmith once:
#   the implicit manifest lives in share/tracesmith/, which the loader does
#   not search (a copy of it where the loader looks makes it twice);
# - the installed tscapture records vk_compute through that implicit
#   manifest and the installed layer library; the installed tsinfo reads it;
# - VK_ADD_LAYER_PATH at the implicit manifest's folder with the layer named
#   in VK_INSTANCE_LAYERS records too (the loader takes it as an explicit
#   layer; with VK_LOADER_DEBUG=warn it says it ignores pre_instance_functions);
# - make uninstall leaves the prefix empty; installed twice, the same;
# - DESTDIR=$T/stage PREFIX=/opt/ts: the same files under the stage, the
#   .pc naming /opt/ts (a program built through PKG_CONFIG_SYSROOT_DIR), the
#   manifest an earlier install left in share/vulkan/implicit_layer.d
#   removed; uninstall leaves only what was there before.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
. "$TOP/tests/support/python.sh"
vk_env_init
unset VK_ADD_LAYER_PATH XDG_DATA_DIRS VK_LAYER_PATH VK_INSTANCE_LAYERS
unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR MANPATH
# our own make, not a job slot of a make that runs the suite
unset MAKEFLAGS MFLAGS MAKELEVEL
B=$VK_ENV_BUILD
P=$T/prefix
for c in make pkg-config man vulkaninfo; do
	command -v $c >/dev/null || fail "$c is not installed (scripts/deps.sh)"
done

# The build is up to date, so install copies and builds nothing; no file of
# the source tree changes (the build's test logs aside).
make -q --no-print-directory -C "$TOP" BUILD="$BUILD" all ||
	fail "$BUILD is not up to date (make BUILD=$BUILD first): install would build"
touch "$T/before"
sleep 1
expect_rc 0 install make -C "$TOP" BUILD="$BUILD" PREFIX="$P" install
changed=$(find "$TOP" -path "$TOP/.git" -prune -o -path "$B/test-logs" -prune -o \
	-newer "$T/before" -print)
[ -z "$changed" ] || fail "make install changed the tree: $changed"
(cd "$P" && find . ! -type d | sort) >"$T/files"
for f in bin/tscapture bin/tsinfo bin/tsreplay bin/tsexport lib/libtracesmith.so.1 \
	lib/libtracesmith.so include/tracesmith/sbt.h include/tracesmith/sbt_json.h \
	lib/pkgconfig/tracesmith.pc share/doc/tracesmith/capture.md \
	lib/tracesmith/libVkLayer_tracesmith.so \
	share/vulkan/explicit_layer.d/VkLayer_tracesmith.json \
	share/tracesmith/vulkan/implicit_layer.d/VkLayer_tracesmith.json; do
	grep -qx "./$f" "$T/files" || fail "make install did not install $f: $(cat "$T/files")"
done
[ ! -e "$P/share/vulkan/implicit_layer.d" ] ||
	fail "make install made share/vulkan/implicit_layer.d, where the loader lists the layer again"
[ "$(readlink "$P/lib/libtracesmith.so")" = libtracesmith.so.1 ] ||
	fail "lib/libtracesmith.so is not a link to libtracesmith.so.1"

# ---- pkg-config: a program against the installed library ----------------------------
ver=$(sed -n 's/^#define TRACESMITH_VERSION "\(.*\)"/\1/p' "$TOP/include/tracesmith/version.h")
got=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --modversion tracesmith) ||
	fail "pkg-config does not find tracesmith in $P/lib/pkgconfig"
[ "$got" = "$ver" ] || fail "tracesmith.pc says version '$got', version.h '$ver'"
flags=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs tracesmith | sed 's/ *$//')
[ "$flags" = "-I$P/include -L$P/lib -ltracesmith" ] || fail "pkg-config --cflags --libs: '$flags'"
cat >"$T/count.c" <<'EOF'
/* Counts a trace's records through libtracesmith. */
#include <stdio.h>
#include <tracesmith/sbt.h>

int main(int argc, char **argv)
{
	sbt_reader *r = NULL;
	sbt_trace_info info;
	sbt_record rec;
	unsigned long long n = 0;
	sbt_status st = argc == 2 ? sbt_reader_open(argv[1], NULL, &r) : SBT_ERR_ARG;

	if (st != SBT_OK) {
		fprintf(stderr, "count: %s\n", sbt_strerror(st));
		return 1;
	}
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK)
		n++;
	sbt_reader_get_info(r, &info);
	printf("%llu %llu\n", n, (unsigned long long)info.record_count);
	sbt_reader_close(r);
	return st == SBT_END ? 0 : 1;
}
EOF
# shellcheck disable=SC2086
(cd "$T" && ${CC:-cc} -std=c11 -Wall -Wextra -Werror count.c $flags -o count) ||
	fail "a program built with pkg-config --cflags --libs tracesmith does not build"
LD_LIBRARY_PATH=$P/lib ldd "$T/count" | grep -qF "$P/lib/libtracesmith.so.1" ||
	fail "the program does not load the installed library: $(LD_LIBRARY_PATH=$P/lib ldd "$T/count")"
TR=$TOP/tests/fixtures/h100/fixed-va/saxpy_static.sbt
expect_rc 0 info "$P/bin/tsinfo" --json "$TR"
nrec=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["records"])' "$T/info.out")
[ "${nrec:-0}" -gt 0 ] || fail "tsinfo --json gave no record count: $(cat "$T/info.out")"
expect_rc 0 count ts_run env LD_LIBRARY_PATH="$P/lib" "$T/count" "$TR"
[ "$(cat "$T/count.out")" = "$nrec $nrec" ] ||
	fail "the program counted '$(cat "$T/count.out")' (read, info), tsinfo $nrec"

# ---- man pages ------------------------------------------------------------------------
for t in $(cd "$P/bin" && ls); do
	page=$P/share/man/man1/$t.1
	[ -f "$page" ] || fail "no man page for $t"
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$page" >"$T/man.out" 2>"$T/man.err" ||
		fail "man -l $page failed: $(cat "$T/man.err")"
	[ ! -s "$T/man.err" ] || fail "man -l $page warns: $(cat "$T/man.err")"
	grep -q "^NAME" "$T/man.out" && grep -q "^ *$t  *- " "$T/man.out" ||
		fail "man -l $page has no NAME line for $t: $(head -5 "$T/man.out")"
	[ "$(MANPATH=$P/share/man man -w "$t")" = "$page" ] || fail "man -w $t does not find $page"
done
[ "$(ls "$P/share/man/man1" | wc -l)" = "$(ls "$P/bin" | wc -l)" ] ||
	fail "man pages $(ls "$P/share/man/man1" | tr '\n' ' ')for tools $(ls "$P/bin" | tr '\n' ' ')"

# ---- the installed docs ----------------------------------------------------------------
D=$P/share/doc/tracesmith
! grep -n '\.\./shared' "$D"/*.md || fail "the installed docs name ../shared files"
for w in $(grep -ohE '\btest_[A-Za-z0-9_]+' "$D"/*.md | sort -u); do
	[ -n "$(find "$TOP/tests" -name "$w" -o -name "$w.*")" ] ||
		grep -rqw -- "$w" "$TOP/tests" "$TOP/Makefile" ||
		fail "the docs name $w, which is not in tests/: $(grep -lw -- "$w" "$D"/*.md)"
done

# ---- vulkaninfo lists the layer once ---------------------------------------------------
# layers NAME: the number of VK_LAYER_tracesmith lines in vulkaninfo --summary
layers() {
	grep -c '^VK_LAYER_tracesmith ' "$T/$1.out" || true
}
expect_rc 0 vi env XDG_DATA_DIRS="$P/share:/usr/local/share:/usr/share" vulkaninfo --summary
[ "$(layers vi)" = 1 ] || fail "vulkaninfo lists VK_LAYER_tracesmith $(layers vi) times: $(cat "$T/vi.out")"
expect_rc 0 vipath env XDG_DATA_DIRS="$P/share:/usr/local/share:/usr/share" \
	VK_LAYER_PATH="$P/share/vulkan/explicit_layer.d" vulkaninfo --summary
[ "$(layers vipath)" = 1 ] || fail "with VK_LAYER_PATH, vulkaninfo lists VK_LAYER_tracesmith $(layers vipath) times"
# where the implicit manifest used to go, the loader lists the name again
mkdir -p "$T/old/vulkan/implicit_layer.d"
cp "$P/share/tracesmith/vulkan/implicit_layer.d/VkLayer_tracesmith.json" "$T/old/vulkan/implicit_layer.d/"
expect_rc 0 viold env XDG_DATA_DIRS="$P/share:$T/old:/usr/share" vulkaninfo --summary
[ "$(layers viold)" = 2 ] || fail "with the old layout vulkaninfo lists the layer $(layers viold) times, not 2"

# ---- the installed tscapture, through the installed implicit layer ---------------------
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
export VK_INSTANCE_LAYERS
expect_rc 0 env "$P/bin/tscapture" -o "$T/env.sbt" -- sh -c 'echo "$XDG_DATA_DIRS|$TRACESMITH_VK_IMPLICIT"'
[ "$(cat "$T/env.out")" = "$P/bin/../share/tracesmith:/usr/local/share:/usr/share|1" ] ||
	fail "the installed tscapture set XDG_DATA_DIRS|TRACESMITH_VK_IMPLICIT to '$(cat "$T/env.out")'"
expect_rc 0 cap env VK_LOADER_DEBUG=layer "$P/bin/tscapture" -o "$T/cap.sbt" -- \
	"$B/tests/programs/vk_compute" --size 1024 --submits 2
vk_env_clean "$T/cap.out" || fail "validation messages under the installed tscapture"
has cap out 'vk_compute: size'
has cap err "tscapture: wrote $T/cap.sbt"
cat "$T/cap.out" "$T/cap.err" >"$T/cap.log"
grep -qF "$P/bin/../share/tracesmith/vulkan/implicit_layer.d/VkLayer_tracesmith.json" "$T/cap.log" ||
	fail "the loader did not read the installed implicit manifest: $(grep -i tracesmith "$T/cap.log" | head -5)"
n=$(grep -c "Insert instance layer \"VK_LAYER_tracesmith\" ($P/lib/tracesmith/libVkLayer_tracesmith.so)" "$T/cap.log" || true)
[ "$n" = 1 ] || fail "the installed layer library was inserted $n times: $(grep 'Insert instance layer' "$T/cap.log")"
expect_rc 0 capinfo "$P/bin/tsinfo" "$T/cap.sbt"
has capinfo out 'vulkan.vkQueueSubmit '
has capinfo out 'vulkan.vkCreateComputePipelines '

# ---- VK_ADD_LAYER_PATH at the implicit manifest's folder, the layer named --------------
expect_rc 0 add env VK_LOADER_DEBUG=warn VK_ADD_LAYER_PATH="$P/share/tracesmith/vulkan/implicit_layer.d" \
	VK_INSTANCE_LAYERS=VK_LAYER_tracesmith:VK_LAYER_KHRONOS_validation TRACESMITH_OUTPUT="$T/add.sbt" \
	"$B/tests/programs/vk_compute" --size 1024 --submits 2
vk_env_clean "$T/add.out" || fail "validation messages with VK_ADD_LAYER_PATH"
grep -q 'Found pre_instance_functions section in explicit layer' "$T/add.out" "$T/add.err" ||
	fail "no loader warning about pre_instance_functions: $(cat "$T/add.out" "$T/add.err")"
expect_rc 0 addinfo "$P/bin/tsinfo" "$T/add.sbt"
has addinfo out 'vulkan.vkQueueSubmit '
unset VK_INSTANCE_LAYERS

# ---- uninstall, after a second install -------------------------------------------------
expect_rc 0 install2 make -C "$TOP" BUILD="$BUILD" PREFIX="$P" install
(cd "$P" && find . ! -type d | sort) >"$T/files2"
cmp -s "$T/files" "$T/files2" || fail "a second install left other files: $(diff "$T/files" "$T/files2")"
expect_rc 0 uninstall make -C "$TOP" BUILD="$BUILD" PREFIX="$P" uninstall
left=$(find "$P" -mindepth 1)
[ -z "$left" ] || fail "make uninstall left: $left"

# ---- DESTDIR ---------------------------------------------------------------------------
S=$T/stage
mkdir -p "$S/opt/ts/bin" "$S/opt/ts/share/vulkan/implicit_layer.d"
echo mine >"$S/opt/ts/bin/mytool"
cp "$T/old/vulkan/implicit_layer.d/VkLayer_tracesmith.json" "$S/opt/ts/share/vulkan/implicit_layer.d/"
expect_rc 0 dinstall make -C "$TOP" BUILD="$BUILD" DESTDIR="$S" PREFIX=/opt/ts install
[ ! -e "$S/opt/ts/share/vulkan/implicit_layer.d" ] ||
	fail "install left the implicit manifest of the old layout: $(ls -R "$S/opt/ts/share/vulkan")"
(cd "$S/opt/ts" && find . ! -type d ! -path ./bin/mytool | sort) >"$T/dfiles"
cmp -s "$T/files" "$T/dfiles" || fail "the DESTDIR install differs: $(diff "$T/files" "$T/dfiles")"
grep -qx 'prefix=/opt/ts' "$S/opt/ts/lib/pkgconfig/tracesmith.pc" || fail "tracesmith.pc does not say prefix=/opt/ts"
grep -q '"library_path": "/opt/ts/lib/tracesmith/libVkLayer_tracesmith.so"' \
	"$S/opt/ts/share/vulkan/explicit_layer.d/VkLayer_tracesmith.json" || fail "the manifest does not name /opt/ts"
dflags=$(PKG_CONFIG_PATH=$S/opt/ts/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$S pkg-config --cflags --libs tracesmith)
# shellcheck disable=SC2086
(cd "$T" && ${CC:-cc} -std=c11 -Wall -Wextra -Werror count.c $dflags -o dcount) ||
	fail "the program does not build against the DESTDIR install ($dflags)"
expect_rc 0 dcount ts_run env LD_LIBRARY_PATH="$S/opt/ts/lib" "$T/dcount" "$TR"
[ "$(cat "$T/dcount.out")" = "$nrec $nrec" ] || fail "the DESTDIR program counted '$(cat "$T/dcount.out")'"
expect_rc 0 duninstall make -C "$TOP" BUILD="$BUILD" DESTDIR="$S" PREFIX=/opt/ts uninstall
left=$(cd "$S/opt/ts" && find . -mindepth 1 | sort | tr '\n' ' ')
[ "$left" = "./bin ./bin/mytool ./share ./share/vulkan " ] ||
	fail "uninstall should leave what was there before (bin/mytool, share/vulkan): $left"
echo "ok"
