"""tracesmith - read TraceSmith's SBT traces from Python.

    import tracesmith

    with tracesmith.open("run.sbt") as trace:
        print(trace.info["record_count"], trace.meta.get("api"))
        for rec in trace:                   # Record objects, in sequence order
            print(rec.seq, rec.name, rec.fields)
        df = trace.to_dataframe()           # a pandas DataFrame

The records come from libtracesmith.so.1 (``make`` builds it into build/lib)
through ctypes; docs/python.md describes the package.  The library is
looked for at $TRACESMITH_LIB (a file), then in the build/lib folder of the
source tree this package sits in (python/../build/lib, or $BUILD/lib when
BUILD names another build folder), then by the system's loader.
"""

import ctypes
import json
import os

__all__ = ["open", "Trace", "Record", "TraceError", "library_path"]

# include/tracesmith/sbt.h SBT_STATUS_LIST, in order.
_STATUS = ["SBT_OK", "SBT_END", "SBT_ERR_IO", "SBT_ERR_NOMEM", "SBT_ERR_ARG",
           "SBT_ERR_NOT_SBT", "SBT_ERR_VERSION", "SBT_ERR_CORRUPT",
           "SBT_ERR_TRUNCATED", "SBT_ERR_NOT_FOUND", "SBT_ERR_CODEC",
           "SBT_ERR_STATE"]
_OK, _END, _NOT_FOUND = 0, 1, 9
_TYPE_FIRST_API = 64


class TraceError(Exception):
    """A trace could not be opened or read: status is the SBT status name
    ("SBT_ERR_CORRUPT"), the message says what and where."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class _Record(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("stack_id", ctypes.c_uint32),
                ("seq", ctypes.c_uint64), ("time_ns", ctypes.c_uint64),
                ("thread", ctypes.c_uint64),
                ("payload", ctypes.POINTER(ctypes.c_uint8)),
                ("payload_len", ctypes.c_size_t)]


class _Header(ctypes.Structure):
    _fields_ = [("version_major", ctypes.c_uint16),
                ("version_minor", ctypes.c_uint16),
                ("features", ctypes.c_uint64),
                ("trace_id", ctypes.c_uint8 * 16),
                ("start_mono_ns", ctypes.c_uint64),
                ("start_wall_ns", ctypes.c_uint64)]


_INFO_COUNTS = ["file_size", "chunk_count", "record_count", "first_seq",
                "last_seq", "first_time_ns", "last_time_ns", "frame_count",
                "keyframe_count", "blob_count", "blob_bytes_logical",
                "blob_bytes_unique", "blob_bytes_stored", "raw_bytes",
                "stored_bytes", "stack_count", "string_count"]


class _Info(ctypes.Structure):
    _fields_ = ([("header", _Header)] +
                [(n, ctypes.c_uint64) for n in _INFO_COUNTS] +
                [("has_index", ctypes.c_int), ("truncated", ctypes.c_int),
                 ("truncated_at", ctypes.c_uint64)])


class _ReaderOptions(ctypes.Structure):
    _fields_ = [("salvage", ctypes.c_int), ("verify", ctypes.c_int),
                ("ignore_index", ctypes.c_int)]


class _Frame(ctypes.Structure):
    _fields_ = [("ip", ctypes.c_uint64), ("symbol_id", ctypes.c_uint32)]


def library_path():
    """Where libtracesmith.so.1 is loaded from: a path, or the bare name
    the system's loader resolves."""
    env = os.environ.get("TRACESMITH_LIB")
    if env:
        return env
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    build = os.environ.get("BUILD", "build")
    for folder in (os.path.join(top, build, "lib"), os.path.join(build, "lib"),
                   os.path.join(top, "build", "lib")):
        candidate = os.path.join(folder, "libtracesmith.so.1")
        if os.path.isfile(candidate):
            return candidate
    return "libtracesmith.so.1"


_lib = None


def _load():
    global _lib
    if _lib is not None:
        return _lib
    path = library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("tracesmith: cannot load %s (%s); build it with make, "
                          "or set TRACESMITH_LIB to its path" % (path, e)) from None
    P, c = ctypes.POINTER, ctypes
    reader = c.c_void_p
    sigs = {
        "sbt_strerror": (c.c_char_p, [c.c_int]),
        "sbt_reader_open": (c.c_int, [c.c_char_p, P(_ReaderOptions), P(reader)]),
        "sbt_reader_close": (None, [reader]),
        "sbt_reader_message": (c.c_char_p, [reader]),
        "sbt_reader_get_info": (None, [reader, P(_Info)]),
        "sbt_reader_next": (c.c_int, [reader, P(_Record)]),
        "sbt_reader_seek_seq": (c.c_int, [reader, c.c_uint64]),
        "sbt_reader_type_at": (c.c_int, [reader, c.c_size_t, P(c.c_uint32), P(c.c_char_p)]),
        "sbt_reader_string": (c.c_char_p, [reader, c.c_uint32]),
        "sbt_reader_stack": (c.c_int, [reader, c.c_uint32, P(P(_Frame)), P(c.c_uint32)]),
        "sbt_reader_meta_at": (c.c_int, [reader, c.c_size_t, P(c.c_char_p), P(c.c_char_p)]),
        "sbt_reader_keyframes": (c.c_int, [reader, P(P(c.c_uint64)), P(c.c_size_t)]),
        "sbt_reader_blob_get": (c.c_int, [reader, c.c_uint64, P(c.c_void_p), P(c.c_size_t)]),
        "sbt_json_create": (c.c_int, [P(c.c_void_p)]),
        "sbt_json_free": (None, [c.c_void_p]),
        "sbt_json_record": (c.c_int, [c.c_void_p, reader, P(_Record), c.c_int,
                                      P(c.c_char_p), P(c.c_size_t)]),
        "sbt_json_type_name": (c.c_char_p, [reader, c.c_uint32]),
        "sbt_json_hash_blobs": (c.c_int, [c.c_void_p, reader]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    _lib = lib
    return lib


def _text(b):
    return b.decode("utf-8", "replace") if b is not None else None


def _status_name(st):
    return _STATUS[st] if 0 <= st < len(_STATUS) else "status %d" % st


class Record:
    """One record: type (number), name ("cuda.cuMemAlloc", "FRAME"), api
    ("cuda", "vulkan", "core"), seq, time_ns (since the trace's start
    clock), thread (OS thread id), stack_id (0: none), payload (bytes).
    fields and json decode the payload (while the trace is open)."""

    __slots__ = ("type", "name", "api", "seq", "time_ns", "thread", "stack_id",
                 "payload", "_trace", "_json")

    def __init__(self, trace, raw, name, api):
        self._trace = trace
        self.type = raw.type
        self.name = name
        self.api = api
        self.seq = raw.seq
        self.time_ns = raw.time_ns
        self.thread = raw.thread
        self.stack_id = raw.stack_id
        self.payload = ctypes.string_at(raw.payload, raw.payload_len) if raw.payload_len else b""
        self._json = None

    @property
    def json(self):
        """The record as tsinfo --dump --json shows it (a dict)."""
        if self._json is None:
            self._json = self._trace._record_json(self)
        return self._json

    @property
    def fields(self):
        """The decoded payload (a dict), or None when no codec decodes it."""
        return self.json.get("args")

    @property
    def stack(self):
        """The host call stack: a list of (ip, symbol or None), innermost first."""
        return self._trace.stack(self.stack_id)

    def __repr__(self):
        return "Record(seq=%d, name=%r, thread=%d, time_ns=%d, %d payload bytes)" % (
            self.seq, self.name, self.thread, self.time_ns, len(self.payload))


def _api_of(name, type_):
    dot = name.find(".")
    if dot > 0:
        return name[:dot]
    return "core" if type_ < _TYPE_FIRST_API else "(unnamed)"


class Trace:
    """An open SBT trace.  info (dict: file_size, record_count, first_seq,
    ..., version, trace_id, has_index, truncated), meta (dict), types (dict:
    type number -> name), message (the reader's diagnostic: a torn tail
    dropped, "" if none).  Iterating gives every Record in sequence order."""

    def __init__(self, path, salvage=False):
        lib = _load()
        self._lib = lib
        self._r = ctypes.c_void_p()
        self._json_fmt = None
        self.path = os.fspath(path)
        opt = _ReaderOptions(1 if salvage else 0, 0, 0)
        st = lib.sbt_reader_open(os.fsencode(self.path), ctypes.byref(opt), ctypes.byref(self._r))
        if st != _OK:
            msg = _text(lib.sbt_reader_message(self._r)) if self._r else ""
            why = msg or _text(lib.sbt_strerror(st))
            if st == 2 and not os.path.exists(self.path):
                why = "no such file"
            self.close()
            raise TraceError(_status_name(st), "%s: %s" % (self.path, why))
        self.message = _text(lib.sbt_reader_message(self._r))
        self.info = self._read_info()
        self.meta = self._read_meta()
        self.types = self._read_types()
        self._names = {}
        self._iteration = 0

    # -- lifetime --
    def close(self):
        if getattr(self, "_json_fmt", None):
            self._lib.sbt_json_free(self._json_fmt)
            self._json_fmt = None
        if getattr(self, "_r", None):
            self._lib.sbt_reader_close(self._r)
            self._r = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _reader(self):
        if not self._r:
            raise ValueError("tracesmith: the trace is closed")
        return self._r

    # -- file-level facts --
    def _read_info(self):
        inf = _Info()
        self._lib.sbt_reader_get_info(self._reader(), ctypes.byref(inf))
        d = {n: getattr(inf, n) for n in _INFO_COUNTS}
        h = inf.header
        d["version"] = "%d.%d" % (h.version_major, h.version_minor)
        d["features"] = h.features
        d["trace_id"] = bytes(h.trace_id).hex()
        d["start_mono_ns"] = h.start_mono_ns
        d["start_wall_ns"] = h.start_wall_ns
        d["has_index"] = bool(inf.has_index)
        d["truncated"] = bool(inf.truncated)
        d["truncated_at"] = inf.truncated_at if inf.truncated else None
        return d

    def _read_meta(self):
        out, i = {}, 0
        k, v = ctypes.c_char_p(), ctypes.c_char_p()
        while self._lib.sbt_reader_meta_at(self._reader(), i, ctypes.byref(k), ctypes.byref(v)) == _OK:
            out[_text(k.value)] = _text(v.value)
            i += 1
        return out

    def _read_types(self):
        out, i = {}, 0
        t, n = ctypes.c_uint32(), ctypes.c_char_p()
        while self._lib.sbt_reader_type_at(self._reader(), i, ctypes.byref(t), ctypes.byref(n)) == _OK:
            out[t.value] = _text(n.value) or ""
            i += 1
        return out

    def keyframes(self):
        """Sequence numbers of the keyframes, ascending."""
        p, n = ctypes.POINTER(ctypes.c_uint64)(), ctypes.c_size_t()
        if self._lib.sbt_reader_keyframes(self._reader(), ctypes.byref(p), ctypes.byref(n)) != _OK:
            return []
        return [p[i] for i in range(n.value)]

    def type_name(self, type_):
        """The name tsinfo shows for a record type ("" when unnamed)."""
        name = self._names.get(type_)
        if name is None:
            name = _text(self._lib.sbt_json_type_name(self._reader(), type_)) or ""
            self._names[type_] = name
        return name

    def string(self, string_id):
        return _text(self._lib.sbt_reader_string(self._reader(), string_id))

    def stack(self, stack_id):
        """Frames of a host call stack: [(ip, symbol or None)], innermost first."""
        if not stack_id:
            return []
        frames, n = ctypes.POINTER(_Frame)(), ctypes.c_uint32()
        st = self._lib.sbt_reader_stack(self._reader(), stack_id, ctypes.byref(frames), ctypes.byref(n))
        if st != _OK:
            return []
        return [(frames[i].ip, self.string(frames[i].symbol_id) if frames[i].symbol_id else None)
                for i in range(n.value)]

    def blob(self, blob_id):
        """The bytes stored under blob_id."""
        data, n = ctypes.c_void_p(), ctypes.c_size_t()
        st = self._lib.sbt_reader_blob_get(self._reader(), blob_id, ctypes.byref(data), ctypes.byref(n))
        if st != _OK:
            raise TraceError(_status_name(st), "%s: blob %d: %s" % (
                self.path, blob_id, _text(self._lib.sbt_reader_message(self._r)) or
                _text(self._lib.sbt_strerror(st))))
        try:
            return ctypes.string_at(data, n.value)
        finally:
            ctypes.CDLL(None).free(data)

    # -- records --
    def records(self, start_seq=0):
        """Every record with seq >= start_seq, in sequence order.  A damaged
        chunk raises TraceError after the records before it (open with
        salvage=True to skip past it).  The trace has one read position:
        starting another iteration ends this one (RuntimeError if it goes on)."""
        lib, r = self._lib, self._reader()
        self._iteration += 1
        mine = self._iteration
        st = lib.sbt_reader_seek_seq(r, start_seq)
        if st in (_END, _NOT_FOUND):
            return
        if st != _OK:
            self._raise(st)
        raw = _Record()
        while True:
            if self._iteration != mine:
                raise RuntimeError("tracesmith: another iteration of %s started; "
                                   "this one cannot go on" % self.path)
            st = lib.sbt_reader_next(self._reader(), ctypes.byref(raw))
            if st == _END:
                return
            if st != _OK:
                self._raise(st)
            name = self.type_name(raw.type)
            yield Record(self, raw, name, _api_of(name, raw.type))

    def __iter__(self):
        return self.records()

    def _raise(self, st):
        msg = _text(self._lib.sbt_reader_message(self._r)) or _text(self._lib.sbt_strerror(st))
        raise TraceError(_status_name(st), "%s: %s" % (self.path, msg))

    def _record_json(self, rec):
        lib = self._lib
        if not self._json_fmt:
            fmt = ctypes.c_void_p()
            st = lib.sbt_json_create(ctypes.byref(fmt))
            if st == _OK:
                # blob references (shaders, ...) carry their bytes' xxh64, as in tsinfo
                st = lib.sbt_json_hash_blobs(fmt, self._reader())
                if st != _OK:
                    lib.sbt_json_free(fmt)
            if st != _OK:
                raise TraceError(_status_name(st), "tracesmith: " + _text(lib.sbt_strerror(st)))
            self._json_fmt = fmt
        buf = (ctypes.c_uint8 * max(1, len(rec.payload))).from_buffer_copy(rec.payload or b"\0")
        raw = _Record(rec.type, rec.stack_id, rec.seq, rec.time_ns, rec.thread,
                      ctypes.cast(buf, ctypes.POINTER(ctypes.c_uint8)), len(rec.payload))
        text, n = ctypes.c_char_p(), ctypes.c_size_t()
        st = lib.sbt_json_record(self._json_fmt, self._reader(), ctypes.byref(raw), 0,
                                 ctypes.byref(text), ctypes.byref(n))
        if st != _OK:
            raise TraceError(_status_name(st), "tracesmith: " + _text(lib.sbt_strerror(st)))
        return json.loads(text.value.decode("utf-8"))

    def to_dataframe(self, fields=False):
        """The records as a pandas DataFrame, one row each: seq, time_ns,
        thread, type, name, api, stack_id, payload_len, and with
        fields=True a "fields" column of decoded payloads (dicts or None)."""
        try:
            import pandas
        except ImportError:
            raise ImportError("tracesmith: to_dataframe needs pandas "
                              "(Debian: python3-pandas)") from None
        cols = {k: [] for k in ("seq", "time_ns", "thread", "type", "name", "api",
                                "stack_id", "payload_len")}
        if fields:
            cols["fields"] = []
        for rec in self.records():
            cols["seq"].append(rec.seq)
            cols["time_ns"].append(rec.time_ns)
            cols["thread"].append(rec.thread)
            cols["type"].append(rec.type)
            cols["name"].append(rec.name)
            cols["api"].append(rec.api)
            cols["stack_id"].append(rec.stack_id)
            cols["payload_len"].append(len(rec.payload))
            if fields:
                cols["fields"].append(rec.fields)
        df = pandas.DataFrame(cols)
        for k in ("seq", "time_ns", "thread"):
            df[k] = df[k].astype("uint64")
        for k in ("type", "stack_id"):
            df[k] = df[k].astype("uint32")
        return df


def open(path, salvage=False):  # noqa: A001 - the package's entry point
    """Open the SBT trace at path (salvage=True skips past corrupt chunks)."""
    return Trace(path, salvage=salvage)
