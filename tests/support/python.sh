# python.sh - Python against the build's libtracesmith.so.1, for
# tests/shell/*.sh (source it after shell.sh):
#   TS_SO              the library: $BUILD/lib/libtracesmith.so.1
#   ts_run CMD...      runs CMD as ts_python runs python3
#   ts_python ARGS...  runs python3 ARGS with python/ on PYTHONPATH,
#                      TRACESMITH_LIB=$TS_SO and no __pycache__ written; in a
#                      sanitizer build (make asan, make tsan) with the
#                      sanitizer's runtime preloaded, which an uninstrumented
#                      python3 needs before it can load an instrumented library
#   TS_PY              the python3 ts_python runs: python3, or /usr/bin/python3
#                      when only that one imports pandas (a python3 from a
#                      version manager may not see the distribution's
#                      python3-pandas); ts_pandas says whether it has pandas
case $BUILD in
/*) TS_SO=$BUILD/lib/libtracesmith.so.1 ;;
*) TS_SO=$TOP/$BUILD/lib/libtracesmith.so.1 ;;
esac
TS_PY=python3
if ! python3 -c 'import pandas' 2>/dev/null && [ -x /usr/bin/python3 ] &&
	/usr/bin/python3 -c 'import pandas' 2>/dev/null; then
	TS_PY=/usr/bin/python3
fi
TS_PRELOAD=
if nm -D "$TS_SO" 2>/dev/null | grep -q ' U __asan_init'; then
	TS_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)
elif nm -D "$TS_SO" 2>/dev/null | grep -q ' U __tsan_init'; then
	TS_PRELOAD=$(${CC:-cc} -print-file-name=libtsan.so)
fi

ts_pandas() {
	"$TS_PY" -c 'import pandas' 2>/dev/null
}

# ts_run CMD...: CMD with the sanitizer runtime preloaded (nothing in a
# normal build); leaks are not checked: python3 is not leak-free at exit.
ts_run() {
	env ${TS_PRELOAD:+LD_PRELOAD="$TS_PRELOAD"} \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$@"
}

ts_python() {
	ts_run env PYTHONPATH="$TOP/python${PYTHONPATH:+:$PYTHONPATH}" TRACESMITH_LIB="$TS_SO" \
		PYTHONDONTWRITEBYTECODE=1 "$TS_PY" "$@"
}
