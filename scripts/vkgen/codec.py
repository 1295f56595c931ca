"""codec - generates the Vulkan call codec from the vk.xml model.

A module of gen.py (generate(reg) -> {path: text}), not a program of its
own: python3 scripts/vkgen/gen.py (make regen) writes its outputs.

Outputs (all under serializer/generated/, all deterministic):
  sbt_vk_codec.h           enum sbt_vk_cmd, per-command argument structs,
                           typed encoders
  sbt_vk_codec_internal.h  the per-struct functions the other generated
                           files share (not for other modules)
  sbt_vk_codec.c           encoders, decoders, pNext chains, unions, tables
  sbt_vk_dump.c            text formatting for tsinfo --dump
  sbt_vk_ignored.h         the ignored-member rules (overrides.IGNORED_MEMBERS)
                           as a table and as predicates
  sbt_vk_selftest.c        fill / encode / decode / compare of every struct
                           and command (linked into the round-trip test
                           only, never into a library)

What vk.xml alone does not say comes from overrides.py (imported as ov).

Analysis first (Codec.__init__): every command and struct gets a Kind for
each member, or a reason why it is not carried.  Generation then walks the
same kinds for each of the five walks (encode, decode, print, fill, compare),
so the five cannot disagree about a member.
"""

import copy
import re
import sys

import overrides as ov

UNSIGNED = {"uint8_t": 8, "uint16_t": 16, "uint32_t": 32, "uint64_t": 64, "size_t": 64}
SIGNED = {"int8_t": 8, "int16_t": 16, "int32_t": 32, "int64_t": 64, "int": 32}


class Uncodable(Exception):
    pass


class El:
    """How one value of a type travels.
    k: u (unsigned varint), i (signed), e (enum), f32, f64, h (handle),
       p (opaque pointer value), s (struct, member-wise), raw (memcpy:
       plain struct or selector-less union), fn (function pointer: presence)
    """

    def __init__(self, k, ctype, bits=64, objtype=None, sname=None, bitmask=False):
        self.k = k
        self.ctype = ctype
        self.bits = bits
        self.objtype = objtype
        self.sname = sname
        self.bitmask = bitmask

    @property
    def plain(self):
        """memcpy-able in arrays: no pointers, no handles, no mapping."""
        return self.k in ("u", "i", "e", "f32", "f64", "raw") and self.ctype != "char"


class Kind:
    def __init__(self, k, m, el=None, count=None, inflag="in", fixn=None, sel=None, out=False):
        self.k = k          # see Codec._member_kind
        self.m = m          # vkxml.Member
        self.el = el        # El of the elements / value
        self.count = count  # C expression over "s->" for the element count
        self.inflag = inflag  # C expression: handles inside are inputs
        self.fixn = fixn    # fixed array length expression
        self.sel = sel      # selector member name (selector unions)
        self.out = out      # command output parameter (gated by success)
        self.check = None   # decode-time count check expression, or None
        self.ign = None     # C expression over "s->": the member is ignored
        self.ign_rule = None  # the part of ign from IGNORED_MEMBERS (not count 0)
        self.ign_ctx = None  # context number: ignored inside that command
        self.ign_par = None  # a parent rule's "when": ignored by the enclosing struct
        self.absent = None  # what an ignored member is written as
        self.stride = None  # array: C expression over "s->", its byte stride
        self.stride_of = None  # val: the array member whose stride it is

    def unignored(self):
        """The same member without its ignore rules (what an ignored member's
        code does when it is not ignored)."""
        k = copy.copy(self)
        k.ign = k.ign_rule = k.ign_ctx = k.ign_par = k.absent = None
        return k


def _mark_strided(owner, kinds):
    """Arrays whose elements lie a stride member's bytes apart (vk.xml's
    stride=: vkCmdDrawMultiEXT, vkCmdDrawMultiIndexedEXT): the encoder
    gathers them packed, and writes the stride member as the element's
    size, so the record is the same call with a packed array."""
    by_name = {k.m.name: k for k in kinds if k.m is not None}
    for k in kinds:
        if k.m is None or not k.m.stride:
            continue
        sk = by_name.get(k.m.stride)
        if k.k != "array" or not k.el.plain or sk is None or sk.k != "val":
            raise Uncodable("%s.%s: stride=%s on a %s" % (owner, k.m.name, k.m.stride, k.k))
        k.stride = "s->" + k.m.stride
        sk.stride_of = k.m.name


def _c_ident_subst(expr, names, prefix, ptr_names):
    def rep(mo):
        w = mo.group(0)
        if w in names:
            if w in ptr_names:
                return "(%s%s ? *%s%s : 0)" % (prefix, w, prefix, w)
            return prefix + w
        return w
    return re.sub(r"[A-Za-z_]\w*", rep, expr)


class Codec:
    def __init__(self, reg):
        self.reg = reg
        self.version = reg.version
        self.struct_reason = {}   # name -> None (carried) or reason
        self.struct_kinds = {}    # name -> [Kind]
        self.cmd_reason = {}      # name -> None or reason
        self.cmd_kinds = {}       # name -> [Kind] (params, then ret)
        self.funcptr_members = []
        self.opaque_used = []
        self._busy = set()
        for name in reg.structs:
            self._struct_ok(name)
        for name, cmd in reg.commands.items():
            self._command_ok(name, cmd)
        self._reach()
        self._extensions()

    # ---- classification ----------------------------------------------------

    def plat_excluded(self, name):
        p = self.reg.platform_of(name)
        if p is not None and p not in ov.PLATFORMS_INCLUDED:
            return p
        return None

    def el_of(self, tname, owner, mname):
        reg = self.reg
        t = reg.resolve(tname)
        if t in UNSIGNED:
            return El("u", t, UNSIGNED[t])
        if t in SIGNED:
            return El("i", t, SIGNED[t])
        if t == "float":
            return El("f32", t)
        if t == "double":
            return El("f64", t)
        if t == "char":
            return El("u", "char", 8)
        if t in ov.PLATFORM_TYPES:
            how = ov.PLATFORM_TYPES[t]
            if how == "u64":
                return El("u", t, 64)
            if how == "u32":
                return El("u", t, 32)
            return El("p", t)
        cat = reg.category(t)
        if cat == "handle":
            h = reg.handle(t)
            return El("h", t, objtype=h.objtype)
        if cat == "enum":
            if not reg.available(t) and not reg.is_core(t):
                raise Uncodable("%s is not in the C headers" % t)
            en = reg.enums.get(t)
            if en is not None and en.kind == "bitmask":
                return El("u", t, en.bitwidth, bitmask=True)
            return El("e", t, 32)
        if cat == "bitmask":
            return El("u", t, 64 if reg.bitmask_is_64(t) else 32, bitmask=True)
        if cat == "funcpointer":
            self.funcptr_members.append("%s.%s" % (owner, mname))
            return El("fn", t)
        if cat == "basetype":
            el = reg.types[t].elem
            bt = el.find("type")
            text = "".join(el.itertext())
            if bt is not None and bt.text != t and "*" not in text:
                sub = self.el_of(bt.text, owner, mname)
                return El(sub.k, t, sub.bits, bitmask=sub.bitmask)
            if bt is not None and "*" in text:
                return El("p", t)
            raise Uncodable("%s is an opaque platform type" % t)
        if cat in ("struct", "union"):
            why = self._struct_ok(t)
            if why:
                raise Uncodable("%s: %s" % (t, why))
            s = reg.struct(t)
            if s.is_union and not self._union_has_selection(s):
                return El("raw", t, sname=t)
            if not s.is_union and self._struct_plain(t):
                return El("raw", t, sname=t)
            return El("s", t, sname=t)
        if t.startswith("StdVideo"):
            raise Uncodable("%s: video std structs carry no length annotations" % t)
        raise Uncodable("type %s has no encoding" % t)

    def _union_has_selection(self, s):
        return any(m.selection for m in s.members)

    def _struct_plain(self, name):
        """All members plain scalars or plain structs, no char arrays, no
        padding: the struct travels as its bytes."""
        s = self.reg.struct(name)
        if s is None or s.is_union or s.has_pnext or s.stype:
            return False
        info = self.reg.struct_size_info(name)
        if info is None or info[2]:
            return False
        for m in s.members:
            if m.ptrs:
                return False
            t = self.reg.resolve(m.type)
            if t == "char":
                return False
            cat = self.reg.category(t)
            if cat in ("handle", "funcpointer"):
                return False
            if t in ov.PLATFORM_TYPES:
                return False
            if cat in ("struct", "union"):
                st = self.reg.struct(t)
                if st.is_union:
                    if self._union_has_selection(st):
                        return False
                    if any(mm.ptrs for mm in st.members):
                        return False
                    continue
                if not self._struct_plain(t):
                    return False
        return True

    def _struct_ok(self, name):
        name = self.reg.resolve(name)
        if name in self.struct_reason:
            return self.struct_reason[name]
        if name in self._busy:
            return None
        reg = self.reg
        s = reg.struct(name)
        why = None
        if s is None:
            why = "unknown struct"
        elif name in ov.STRUCTS_EXCLUDED:
            why = "overrides: " + ov.STRUCTS_EXCLUDED[name]
        elif not reg.available(name):
            why = "not in the C headers (disabled extension)"
        elif self.plat_excluded(name):
            why = "platform %s excluded" % self.plat_excluded(name)
        if why is None:
            self._busy.add(name)
            try:
                if s.is_union and not self._union_has_selection(s):
                    # Travels as its bytes: a pointer member (hostAddress)
                    # is a value, never followed.
                    for m in s.members:
                        if not m.ptrs:
                            self.el_of(m.type, name, m.name)
                    kinds = []
                else:
                    plain = self._struct_plain(name)
                    kinds = [self._member_kind(name, s.members, m, False, plain) for m in s.members]
                    _mark_ignored(name, kinds)
                self.struct_kinds[name] = kinds
            except Uncodable as ex:
                why = str(ex)
            self._busy.discard(name)
        self.struct_reason[name] = why
        return why

    def _command_ok(self, name, cmd):
        reg = self.reg
        why = None
        if not reg.available(name):
            why = "not in the C headers (disabled extension)"
        elif self.plat_excluded(name):
            why = "platform %s excluded" % self.plat_excluded(name)
        elif name in ov.COMMANDS_EXCLUDED or (cmd.alias and cmd.alias in ov.COMMANDS_EXCLUDED):
            why = "overrides: " + ov.COMMANDS_EXCLUDED.get(name, ov.COMMANDS_EXCLUDED.get(cmd.alias, ""))
        if why is None:
            try:
                kinds = [self._member_kind(name, cmd.params, p, True) for p in cmd.params]
                if cmd.ret != "void":
                    kinds.append(Kind("ret", None, self.el_of(cmd.ret, name, "ret"), inflag="0"))
                _mark_ignored(name, kinds)
                _mark_strided(name, kinds)
                self.cmd_kinds[name] = kinds
            except Uncodable as ex:
                why = str(ex)
        self.cmd_reason[name] = why

    def _count_expr(self, owner, members, m, is_cmd):
        """C expression (over s->) for the element count of array member m."""
        names = [x.name for x in members]
        ptr_names = {x.name for x in members if x.ptrs == 1 and x.type in UNSIGNED and not x.array}
        if m.altlen:
            return "(uint64_t)(%s)" % _c_ident_subst(m.altlen, names, "s->", ptr_names), \
                [w for w in re.findall(r"[A-Za-z_]\w*", m.altlen) if w in names]
        l = m.len[0]
        if "->" in l:
            a, b = l.split("->", 1)
            if a not in names:
                raise Uncodable("%s.%s: length %s names no parameter" % (owner, m.name, l))
            return "(s->%s ? (uint64_t)s->%s->%s : 0)" % (a, a, b), [a]
        if l not in names:
            raise Uncodable("%s.%s: length %s names no member" % (owner, m.name, l))
        src = members[names.index(l)]
        if src.ptrs == 1:
            return "(s->%s ? (uint64_t)*s->%s : 0)" % (l, l), [l]
        if src.ptrs:
            raise Uncodable("%s.%s: length %s is not a count" % (owner, m.name, l))
        return "(uint64_t)s->%s" % l, [l]

    def _member_kind(self, owner, members, m, is_cmd, plain=False):
        reg = self.reg
        t = reg.resolve(m.type)
        names = [x.name for x in members]
        out = is_cmd and m.ptrs > 0 and not m.const_levels[0] and t not in ov.PLATFORM_TYPES
        if is_cmd:
            inflag = "0" if out else "1"
        else:
            inflag = "0" if (m.ptrs and not m.const_levels[0]) else "in"
        if m.bitfield is not None and plain:
            return Kind("val", m, self.el_of(t, owner, m.name), inflag=inflag)
        if m.bitfield is not None:
            raise Uncodable("%s.%s is a bitfield (only plain structs may have them)" % (owner, m.name))
        if m.name == "sType" and t == "VkStructureType" and m.values and not is_cmd:
            return Kind("stype", m)
        if m.name == "pNext" and not is_cmd:
            return Kind("pnext", m, inflag="in")
        if m.objecttype and t == "uint64_t" and not m.ptrs:
            return Kind("objh", m, inflag=inflag, sel=m.objecttype)
        if m.array and not is_cmd:
            if t == "char":
                if len(m.array) != 1:
                    raise Uncodable("%s.%s: multi-dimensional char array" % (owner, m.name))
                return Kind("fixstr", m, fixn=m.array[0])
            el = self.el_of(t, owner, m.name)
            if m.ptrs:
                raise Uncodable("%s.%s: array of pointers" % (owner, m.name))
            if el.plain:
                return Kind("fixraw", m, el)
            if len(m.array) != 1:
                raise Uncodable("%s.%s: multi-dimensional array of %s" % (owner, m.name, t))
            return Kind("fixarr", m, el, fixn=m.array[0], inflag=inflag)
        if m.array and is_cmd:
            # e.g. const float blendConstants[4]: a pointer to that many
            el = self.el_of(t, owner, m.name)
            k = Kind("array", m, el, count="(uint64_t)(%s)" % m.array[0], inflag=inflag)
            k.check = k.count
            return k
        if m.ptrs == 0:
            if reg.category(t) == "union":
                s = reg.struct(t)
                why = self._struct_ok(t)
                if why:
                    raise Uncodable("%s: %s" % (t, why))
                if self._union_has_selection(s):
                    if not m.selector or m.selector not in names or names.index(m.selector) > names.index(m.name):
                        raise Uncodable("%s.%s: union without a preceding selector" % (owner, m.name))
                    return Kind("usel", m, El("s", t, sname=t), sel=m.selector, inflag=inflag)
            return Kind("val", m, self.el_of(t, owner, m.name), inflag=inflag)
        key = (self._canon(owner), m.name)
        if key in ov.TEMPLATE_DATA:
            return Kind("tbytes", m)
        if t in ov.PLATFORM_TYPES and m.ptrs == 1:
            return Kind("ptr", m)
        if t == "void" and m.ptrs == 1:
            if m.len:
                cnt, srcs = self._count_expr(owner, members, m, is_cmd)
                k = Kind("bytes", m, El("u", "uint8_t", 8), count=cnt, out=out)
                k.check = self._check(members, m, cnt, srcs)
                return k
            if key in ov.OPAQUE_POINTERS:
                self.opaque_used.append(key)
                return Kind("ptr", m)
            raise Uncodable("%s.%s: void* of no stated size" % (owner, m.name))
        if t == "void" and m.ptrs == 2:
            if key in ov.OPAQUE_POINTERS and not m.len:
                self.opaque_used.append(key)
                return Kind("single", m, El("p", "void*"), inflag="0", out=out)
            raise Uncodable("%s.%s: array of unsized pointers" % (owner, m.name))
        if t == "char" and m.ptrs == 1:
            return Kind("str", m)
        if t == "char" and m.ptrs == 2:
            if len(m.len) == 2 and m.len[1] == "null-terminated":
                cnt, srcs = self._count_expr(owner, members, _LenOnly(m, m.len[0]), is_cmd)
                k = Kind("strarr", m, count=cnt, out=out)
                k.check = self._check(members, m, cnt, srcs)
                return k
            raise Uncodable("%s.%s: char** without a count" % (owner, m.name))
        el = self.el_of(t, owner, m.name)
        if m.ptrs == 1:
            if m.len and m.len[0] != "null-terminated":
                cnt, srcs = self._count_expr(owner, members, m, is_cmd)
                k = Kind("array", m, el, count=cnt, inflag=inflag, out=out)
                k.check = self._check(members, m, cnt, srcs)
                return k
            if m.len:
                raise Uncodable("%s.%s: null-terminated array of %s" % (owner, m.name, t))
            return Kind("single", m, el, inflag=inflag, out=out)
        if m.ptrs == 2 and len(m.len) == 2 and m.len[1] == "1":
            cnt, srcs = self._count_expr(owner, members, _LenOnly(m, m.len[0]), is_cmd)
            k = Kind("ptrarr", m, el, count=cnt, inflag=inflag, out=out)
            k.check = self._check(members, m, cnt, srcs)
            return k
        raise Uncodable("%s.%s: %s has no encoding" % (owner, m.name, m.cdecl))

    def _canon(self, owner):
        c = self.reg.commands.get(owner)
        if c is not None and c.alias:
            return c.alias
        return owner

    def _check(self, members, m, cnt, srcs):
        """The count expression may be checked at decode time when every
        member it reads was decoded before m."""
        names = [x.name for x in members]
        if not srcs:
            return cnt
        if all(names.index(s) < names.index(m.name) for s in srcs):
            return cnt
        return None

    # ---- reachability and extensions ---------------------------------------------

    def _reach(self):
        reg = self.reg
        seen = []
        seen_set = set()
        todo = []

        def add(t):
            t = reg.resolve(t)
            if t in reg.structs and t not in seen_set and self.struct_reason.get(t) is None:
                seen_set.add(t)
                seen.append(t)
                todo.append(t)

        for name, kinds in self.cmd_kinds.items():
            if self.cmd_reason[name]:
                continue
            for k in kinds:
                if k.el is not None and k.el.sname:
                    add(k.el.sname)
        while todo:
            t = todo.pop(0)
            s = reg.struct(t)
            for k in self.struct_kinds.get(t, []):
                if k.el is not None and k.el.sname:
                    add(k.el.sname)
            if s.is_union:
                for m in s.members:
                    if reg.is_struct(m.type):
                        add(m.type)
            for ext in s.extended_by:
                add(ext)
        # vk.xml order, so output does not depend on the walk
        self.structs = [n for n in reg.structs if n in seen_set]
        self.reach_set = seen_set
        self.chain_structs = [n for n in self.structs if reg.structs[n].stype and reg.structs[n].structextends]

    def _extensions(self):
        reg = self.reg
        self.ext_reason = {}
        for name, ext in reg.extensions.items():
            why = None
            if "vulkan" not in ext.supported:
                why = "not supported for the vulkan API (%s)" % ",".join(ext.supported)
            elif ext.provisional or ext.platform == "provisional":
                why = "platform provisional excluded"
            elif ext.platform and ext.platform not in ov.PLATFORMS_INCLUDED:
                why = "platform %s excluded" % ext.platform
            elif name in ov.EXTENSIONS_EXCLUDED:
                why = "overrides: " + ov.EXTENSIONS_EXCLUDED[name]
            else:
                for c in ext.commands:
                    if self.cmd_reason.get(c):
                        why = "command %s: %s" % (c, self.cmd_reason[c])
                        break
                if why is None:
                    for t in ext.types:
                        if reg.resolve(t) in reg.structs and self.struct_reason.get(reg.resolve(t)):
                            why = "struct %s: %s" % (t, self.struct_reason[reg.resolve(t)])
                            break
            self.ext_reason[name] = why

    # ---- helpers for the emitters ----------------------------------------------

    def cmd_params(self, name):
        return self.reg.commands[name].params

    def carried_commands(self):
        return [n for n in self.reg.commands if not self.cmd_reason[n]]

    def cmd_platform_macro(self, name):
        p = self.reg.platform_of(name)
        if p in ov.PLATFORMS_INCLUDED:
            return ov.PLATFORMS_INCLUDED[p][0]
        return None

    def args_decl(self, cmd):
        lines = []
        for p in cmd.params:
            ct = p.ctype
            if p.array:
                ct = ct + " *"
            lines.append("\t%s %s;" % (_fmt_ctype(ct), p.name))
        if cmd.ret != "void":
            lines.append("\t%s ret;" % cmd.ret)
        if not lines:
            lines.append("\tint unused;")
        return lines


class _LenOnly:
    """A member view with only its first len item (for count expressions)."""

    def __init__(self, m, first):
        self.name = m.name
        self.altlen = None
        self.len = [first]


def _fmt_ctype(ct):
    ct = ct.replace(" *", "*").replace("*", " *").replace("  ", " ")
    return ct.strip()


# ============================================================================
# Emitters
# ============================================================================

# ---- members the specification says are ignored (overrides.IGNORED_MEMBERS) ----

# Commands named by an ("in_command", ...) rule, numbered from 1: the command's
# encoder sets sbt_vk_e.ctx to its number while it encodes its parameters.
IGNORED_CONTEXTS = sorted({r["when"][1] for r in ov.IGNORED_MEMBERS if r["when"][0] == "in_command"})
# Parent rules: conditions over the struct the owner is reached from.  Each
# PARENT they name, numbered from 1, points sbt_vk_e.parent at itself (and
# sets parent_id to its number) while it encodes its members.
PARENT_RULES = ("dynamic_state", "parent_not_in", "parent_flag_clear")
# Rules over state only the layer has: applied by the layer
# (overrides.LAYER_ARG_FIXUPS), not by the encoder.
LAYER_RULES = ("primary_command_buffer",)
IGNORED_PARENTS = sorted({r["when"][1] for r in ov.IGNORED_MEMBERS if r["when"][0] in PARENT_RULES})
# owner -> its one parent (the handle walk passes it down)
IGNORED_PARENT_OF = {r["owner"]: r["when"][1] for r in ov.IGNORED_MEMBERS if r["when"][0] in PARENT_RULES}


def ignored_parent(when, p):
    """C expression, over p (a non-NULL const PARENT *), true when a parent
    rule's member is ignored."""
    if when[0] == "dynamic_state":
        return "sbt_vk_ignored_dynamic(%s->pDynamicState, %d, (const VkDynamicState[]){%s})" % (
            p, len(when[2]), ", ".join(when[2]))
    if when[0] == "parent_flag_clear":
        return "!(%s->%s & %s)" % (p, when[2], when[3])
    return "!(%s)" % " || ".join("%s->%s == %s" % (p, when[2], v) for v in when[3])


def ignored_in_parent(when):
    """The same inside the encoder (false outside the parent)."""
    return "(e->parent_id == %d && %s)" % (IGNORED_PARENTS.index(when[1]) + 1,
                                           ignored_parent(when, "((const %s *)e->parent)" % when[1]))


def ignored_cond(when, pfx="s->"):
    """C expression, over pfx + sibling members, true when the rule's member is
    ignored; None for a context rule."""
    op = when[0]
    if op == "not_in":
        return "!(%s)" % " || ".join("%s%s == %s" % (pfx, when[1], v) for v in when[2])
    if op == "flag_clear":
        return "!(%s%s & %s)" % (pfx, when[1], when[2])
    if op == "flag_set":
        return "(%s%s & %s)" % (pfx, when[1], when[2])
    if op == "not_eq":
        return "(%s%s != %s)" % (pfx, when[1], when[2])
    if op in ("in_command",) + PARENT_RULES + LAYER_RULES:
        return None
    if op == "rasterizer_discard":
        return "sbt_vk_ignored_discard(%spRasterizationState, %spDynamicState)" % (pfx, pfx)
    if op == "lacks_stages":
        return "!sbt_vk_ignored_stages(%sstageCount, %spStages, %s)" % (pfx, pfx, " | ".join(when[1]))
    if op == "no_rendering_attachment":
        return "sbt_vk_ignored_no_rendering_attachment(%srenderPass, %sflags, %spNext, %d)" % (
            pfx, pfx, pfx, {"depth_stencil": 0, "color": 1}[when[1]])
    raise AssertionError(when)


def ignored_text(when):
    """The condition in words (docs, the rule table)."""
    op = when[0]
    if op == "not_in":
        return "%s not in {%s}" % (when[1], ", ".join(v.replace("VK_DESCRIPTOR_TYPE_", "") for v in when[2]))
    if op == "flag_clear":
        return "%s lacks %s" % (when[1], when[2])
    if op == "flag_set":
        return "%s has %s" % (when[1], when[2])
    if op == "not_eq":
        return "%s != %s" % (when[1], when[2])
    if op == "rasterizer_discard":
        return ("pRasterizationState->rasterizerDiscardEnable and "
                "VK_DYNAMIC_STATE_RASTERIZER_DISCARD_ENABLE not in pDynamicState")
    if op == "lacks_stages":
        return "pStages lacks %s" % " or ".join(when[1])
    if op == "no_rendering_attachment":
        return ("a complete pipeline (no libraries) for dynamic rendering (renderPass "
                "VK_NULL_HANDLE) whose VkPipelineRenderingCreateInfo (or its absence) has no %s"
                % {"depth_stencil": "depth or stencil format", "color": "color attachment"}[when[1]])
    if op == "dynamic_state":
        return "%s.pDynamicState has %s" % (when[1], " or ".join(when[2]))
    if op == "primary_command_buffer":
        return "the command buffer is primary (applied by the layer, which knows the level)"
    if op == "parent_flag_clear":
        return "the enclosing %s's %s lacks %s" % (when[1], when[2], when[3])
    if op == "parent_not_in":
        return "the enclosing %s's %s not in {%s}" % (
            when[1], when[2], ", ".join(v.replace("VK_DESCRIPTOR_TYPE_", "") for v in when[3]))
    return "passed to %s" % when[1]


COUNTED_KINDS = ("array", "ptrarr", "bytes", "strarr")


def _zero_count_applies(k):
    """The generic rule: a const input array with a count member."""
    m = k.m
    return (k.k in COUNTED_KINDS and not k.out and k.count and m.const_levels
            and m.const_levels[0] and "*" not in k.count and "[" not in k.count)


def _mark_ignored(owner, kinds):
    for k in kinds:
        if k.m is None:
            continue
        conds = []
        for r in ov.IGNORED_MEMBERS:
            if r["owner"] != owner or r["member"] != k.m.name:
                continue
            c = ignored_cond(r["when"])
            if r["when"][0] in LAYER_RULES:
                continue
            if r["when"][0] in PARENT_RULES:
                k.ign_par = r["when"]
            elif c is None:
                k.ign_ctx = IGNORED_CONTEXTS.index(r["when"][1]) + 1
            else:
                conds.append(c)
            k.absent = r.get("absent")
        if conds:
            k.ign_rule = " || ".join("(%s)" % c for c in conds)
        if _zero_count_applies(k):
            conds.append("(%s) == 0" % k.count)
        if conds:
            k.ign = " || ".join("(%s)" % c for c in conds)


def _ign_expr(k, pfx="s->"):
    """The whole condition (context included: encoder only)."""
    parts = []
    if k.ign:
        parts.append(k.ign.replace("s->", pfx))
    if k.ign_ctx:
        parts.append("e->ctx == %d" % k.ign_ctx)
    if k.ign_par:
        parts.append(ignored_in_parent(k.ign_par))
    return " || ".join(parts) if parts else None


PTR_KINDS = ("str", "bytes", "tbytes", "strarr", "single", "array", "ptrarr", "ptr")


# ---- decoder checks: what no encoder writes ---------------------------------
#
# The encoder writes what the application passed; a valid application passes
# what vk.xml allows.  So the decoder refuses, for input parameters and the
# members of input structs (a trace is untrusted input, and the replayer hands
# the decoded arguments to a driver): VK_NULL_HANDLE where a handle is not
# optional= (per level: a handle array's elements are level 1), a NULL
# string or pointer that is not optional=, an array absent while its count
# (len=, altlen=) is not 0, and an altlen= division that leaves a remainder
# (codeSize / 4).  noautovalidity= members are left to their hand-written
# rules: the ignored-member rules of overrides.IGNORED_MEMBERS, which make an
# array absent when it is ignored, are honoured; otherwise their handles and
# pointers are not judged here.

# Arrays the specification lets be NULL while their count is not 0:
# overrides.DECODE_ABSENT_OK.

_ALTLEN_DIV = re.compile(r"^\s*([A-Za-z_]\w*)\s*/\s*(\d+)\s*$")


def _and(a, b):
    """a && b, leaving out a literal 1 (a command's inflag)."""
    return b if a == "1" else a if b == "1" else "%s && %s" % (a, b)


def _inflag(cx, k, owner):
    """k's inflag as C: a command's parameters are decoded as inputs ("1")
    unless they are outputs; a struct's depend on its caller ("in")."""
    if k.inflag == "in" and owner in cx.cmd_reason:
        return "1"
    return k.inflag


def _req_handle(cx, k, owner, level):
    """C condition (the inflag) under which a null handle decoded for k (its
    value at level 0, its elements at level 1) is refused; None if never."""
    m = k.m
    if k.el is None or k.el.k != "h" or k.inflag == "0" or m is None:
        return None
    if m.noautovalidity or m.is_optional(level):
        return None
    if level == 0 and (k.ign or k.ign_ctx or k.ign_par):
        return None
    return _inflag(cx, k, owner)


def _req_pointer(cx, k, owner):
    """The same for a string or a pointer to one element."""
    m = k.m
    if k.inflag == "0" or k.out or m is None or m.noautovalidity or m.is_optional(0):
        return None
    if not (m.const_levels and m.const_levels[0]) or k.ign or k.ign_ctx or k.ign_par:
        return None
    return _inflag(cx, k, owner)


def _absent_refused(cx, k, owner):
    """C condition, over s->, under which k's array being absent is refused,
    or None: an input array whose count is not 0 (and is known when it is
    decoded), unless optional=, overrides.DECODE_ABSENT_OK or an ignored-member rule
    over members decoded before it says it may be."""
    m = k.m
    if m is None or k.inflag == "0" or k.out or not k.check or m.is_optional(0) or k.ign_par:
        return None
    if not (m.const_levels and m.const_levels[0]):
        return None
    if (cx._canon(owner), m.name) in ov.DECODE_ABSENT_OK:
        return None
    cond = _and(_inflag(cx, k, owner), "(%s) != 0" % k.check)
    if k.ign_rule:
        members = cx.cmd_params(owner) if owner in cx.cmd_kinds else \
            [x.m for x in cx.struct_kinds.get(owner, []) if x.m is not None]
        names = [x.name for x in members]
        used = [w for w in re.findall(r"s->(\w+)", k.ign_rule)]
        if not all(w in names and names.index(w) < names.index(m.name) for w in used):
            return None
        cond += " && !(%s)" % k.ign_rule
    return cond


class Emit:
    """Shared state of one generation run: temp-name counter, enum users."""

    def __init__(self, cx):
        self.cx = cx
        self.reg = cx.reg
        self.n = 0
        self.enums_used = set()
        self.flags_used = set()  # FlagBits enums the dump names bits of
        self.known_enums = set()  # enums whose decoded values are checked

    def t(self, base):
        self.n += 1
        return "%s%d" % (base, self.n)

    # ---- element-level snippets -------------------------------------------

    def enc_el(self, el, lv):
        k = el.k
        if k == "u":
            return ["SBT_VK_ET(sbt_vk_put_u(e, (uint64_t)(%s)));" % lv]
        if k == "e" or (k == "i" and el.bits == 32):
            # C enums whose values are all positive are unsigned to gcc: go
            # through int32_t so negative values keep their sign.
            return ["SBT_VK_ET(sbt_vk_put_i(e, (int64_t)(int32_t)(%s)));" % lv]
        if k == "i":
            return ["SBT_VK_ET(sbt_vk_put_i(e, (int64_t)(%s)));" % lv]
        if k == "f32":
            return ["SBT_VK_ET(sbt_vk_put_f32(e, %s));" % lv]
        if k == "f64":
            return ["SBT_VK_ET(sbt_vk_put_f64(e, %s));" % lv]
        if k in ("h", "p"):
            return ["SBT_VK_ET(sbt_vk_put_u(e, (uint64_t)(uintptr_t)(%s)));" % lv]
        if k == "s":
            return ["SBT_VK_ET(sbt_vk_e_%s(e, &(%s)));" % (el.sname, lv)]
        if k == "raw":
            return ["SBT_VK_ET(sbt_vk_put_raw(e, &(%s), sizeof(%s)));" % (lv, lv)]
        if k == "fn":
            return ["SBT_VK_ET(sbt_vk_put_u(e, (%s) != NULL));" % lv]
        raise AssertionError(k)

    def dec_el(self, el, lv, inf, F, req=None):
        """req: C condition under which a null handle is refused (decoder
        checks: _req_handle)."""
        k = el.k
        v = self.t("v")
        if k == "u":
            return ["{", "\tuint64_t %s;" % v,
                    "\tSBT_VK_DT(sbt_vk_get_ubits(d, &%s, %d), \"%s\");" % (v, el.bits, F),
                    "\t%s = (%s)%s;" % (lv, el.ctype, v), "}"]
        if k in ("i", "e"):
            known = []
            if k == "e":
                en = self.reg.resolve(el.ctype)
                self.known_enums.add(en)
                known = ["\tif (SBT_VK_UNLIKELY(!sbt_vk_known_%s(%s)))" % (en, v),
                         "\t\tsbt_vk_d_unknown_enum(d, \"%s\", %s);" % (F, v)]
            return ["{", "\tint64_t %s;" % v,
                    "\tSBT_VK_DT(sbt_vk_get_ibits(d, &%s, %d), \"%s\");" % (v, el.bits, F)] + known + \
                ["\t%s = (%s)%s;" % (lv, el.ctype, v), "}"]
        if k == "f32":
            return ["SBT_VK_DT(sbt_vk_get_f32(d, &(%s)), \"%s\");" % (lv, F)]
        if k == "f64":
            return ["SBT_VK_DT(sbt_vk_get_f64(d, &(%s)), \"%s\");" % (lv, F)]
        if k == "h":
            chk = []
            if req:
                chk = ["\tif (SBT_VK_UNLIKELY(%s))" % _and("!" + v, req),
                       "\t\treturn sbt_vk_d_fail(d, SBT_VK_ERR_INVALID, \"%s (VK_NULL_HANDLE where vk.xml "
                       "requires a handle)\");" % F]
            return ["{", "\tuint64_t %s;" % v,
                    "\tSBT_VK_DT(sbt_vk_get_handle(d, &%s, %s, %s), \"%s\");" % (v, el.objtype, inf, F)] + \
                chk + ["\t%s = (%s)(uintptr_t)%s;" % (lv, el.ctype, v), "}"]
        if k == "p":
            return ["{", "\tuint64_t %s;" % v,
                    "\tSBT_VK_DT(sbt_vk_get_u(d, &%s), \"%s\");" % (v, F),
                    "\t%s = (%s)(uintptr_t)%s;" % (lv, el.ctype, v), "}"]
        if k == "s":
            return ["SBT_VK_DT(sbt_vk_d_%s(d, &(%s), %s), \"%s\");" % (el.sname, lv, inf, F)]
        if k == "raw":
            return ["SBT_VK_DT(sbt_vk_get_raw(d, &(%s), sizeof(%s)), \"%s\");" % (lv, lv, F)]
        if k == "fn":
            return ["{", "\tuint64_t %s;" % v,
                    "\tSBT_VK_DT(sbt_vk_get_u(d, &%s), \"%s\");" % (v, F),
                    "\t%s = NULL;" % lv, "}"]
        raise AssertionError(k)

    def _flag_bits(self, ctype):
        """The FlagBits enum naming the bits of flags type ctype, or None."""
        reg = self.reg
        t = reg.resolve(ctype)
        en = reg.enums.get(t)
        if en is None:
            b = reg.bitmasks.get(t)
            t = b and b.bits and reg.resolve(b.bits)
            en = t and reg.enums.get(t)
        if en is None or en.kind != "bitmask" or \
                not any(en.values[v].value and not en.values[v].value & (en.values[v].value - 1)
                        for v in _enum_values(self.cx, t)):
            return None
        return t

    def pr_el(self, el, key, lv):
        k = el.k
        if k == "u":
            if el.bitmask:
                bits = self._flag_bits(el.ctype)
                if bits:
                    self.flags_used.add(bits)
                    return ["sbt_vk_pr_flags(pr, \"%s\", sbt_vk_fl_%s, SBT_VK_FL_%s, (uint64_t)(%s));"
                            % (key, bits, bits, lv)]
                return ["sbt_vk_pr_x(pr, \"%s\", (uint64_t)(%s));" % (key, lv)]
            if key in ov.DUMP_VERSION_MEMBERS and el.bits == 32:
                return ["sbt_vk_pr_ver(pr, \"%s\", (uint32_t)(%s));" % (key, lv)]
            return ["sbt_vk_pr_u(pr, \"%s\", (uint64_t)(%s));" % (key, lv)]
        if k == "i":
            return ["sbt_vk_pr_i(pr, \"%s\", (int64_t)(%s));" % (key, lv)]
        if k == "e":
            self.enums_used.add(el.ctype)
            return ["sbt_vk_pr_e(pr, \"%s\", sbt_vk_en_%s((int64_t)(%s)), (int64_t)(%s));"
                    % (key, self.reg.resolve(el.ctype), lv, lv)]
        if k in ("f32", "f64"):
            return ["sbt_vk_pr_f(pr, \"%s\", (double)(%s));" % (key, lv)]
        if k == "h":
            return ["sbt_vk_pr_h(pr, \"%s\", \"%s\", (uint64_t)(uintptr_t)(%s));" % (key, el.ctype, lv)]
        if k == "p":
            return ["sbt_vk_pr_x(pr, \"%s\", (uint64_t)(uintptr_t)(%s));" % (key, lv)]
        if k == "s" or (k == "raw" and not self.reg.struct(el.sname).is_union):
            m = self.t("m")
            return ["{", "\tsize_t %s = sbt_vk_pr_enter(pr, \"%s\");" % (m, key),
                    "\tsbt_vk_p_%s(pr, &(%s));" % (el.sname, lv),
                    "\tsbt_vk_pr_pop(pr, %s);" % m, "}"]
        if k == "raw":
            return ["sbt_vk_pr_bytes(pr, \"%s\", &(%s), sizeof(%s));" % (key, lv, lv)]
        if k == "fn":
            return ["sbt_vk_pr_u(pr, \"%s\", (%s) != NULL);" % (key, lv)]
        raise AssertionError(k)

    def fill_el(self, el, lv, small=None, nonnull=False):
        k = el.k
        if small:
            return ["%s = (%s)(%s);" % (lv, el.ctype, small)]
        if k == "h" and nonnull:
            # a handle the decoder requires (_req_handle)
            return ["%s = (%s)(uintptr_t)(sbt_vk_t_handle(f) | 1);" % (lv, el.ctype)]
        if k == "u":
            if el.ctype == "char":
                return ["%s = (char)('a' + sbt_vk_t_rand(f) %% 26);" % lv]
            return ["%s = (%s)sbt_vk_t_rand(f);" % (lv, el.ctype)]
        if k in ("i", "e"):
            it = "int64_t" if el.bits == 64 else "int32_t"
            return ["%s = (%s)(%s)sbt_vk_t_rand(f);" % (lv, el.ctype, it)]
        if k == "f32":
            return ["%s = (float)(sbt_vk_t_rand(f) %% 1024) * 0.25f;" % lv]
        if k == "f64":
            return ["%s = (double)(sbt_vk_t_rand(f) %% 1024) * 0.25;" % lv]
        if k == "h":
            return ["%s = (%s)(uintptr_t)sbt_vk_t_handle(f);" % (lv, el.ctype)]
        if k == "p":
            return ["%s = (%s)(uintptr_t)sbt_vk_t_rand(f);" % (lv, el.ctype)]
        if k == "s":
            return ["sbt_vk_f_%s(f, &(%s), depth + 1);" % (el.sname, lv)]
        if k == "raw":
            return ["sbt_vk_t_bytes(f, &(%s), sizeof(%s));" % (lv, lv)]
        if k == "fn":
            return ["%s = NULL;" % lv]
        raise AssertionError(k)

    def cmp_el(self, el, A, B, inf):
        """C condition that is true on MISMATCH."""
        k = el.k
        if k in ("u", "i", "e"):
            return "(%s) != (%s)" % (A, B)
        if k in ("f32", "f64", "raw"):
            return "memcmp(&(%s), &(%s), sizeof(%s)) != 0" % (A, B, A)
        if k == "h":
            return "(uint64_t)(uintptr_t)(%s) != sbt_vk_t_mapped((uint64_t)(uintptr_t)(%s), %s)" % (B, A, inf)
        if k == "p":
            return "(uintptr_t)(%s) != (uintptr_t)(%s)" % (A, B)
        if k == "s":
            return "sbt_vk_c_%s(c, &(%s), &(%s), %s)" % (el.sname, A, B, inf)
        if k == "fn":
            return "(%s) != NULL" % B
        raise AssertionError(k)

    # ---- member-level walks ------------------------------------------------

    def enc_member(self, k):
        m = k.m
        K = k.k
        if K == "stype":
            return []
        if K == "pnext":
            return ["SBT_VK_ET(sbt_vk_e_chain(e, s->pNext));"]
        if K == "ret":
            return self.enc_el(k.el, "s->ret")
        nm = "s->" + m.name
        ign = _ign_expr(k)
        if ign and K == "val":
            absent = k.absent or "0"
            return self.enc_el(k.el, "((%s) ? (__typeof__(%s))%s : %s)" % (ign, nm, absent, nm))
        if ign and K in COUNTED_KINDS + ("single", "str"):
            # an ignored member travels as NULL: never read
            p = self.t("p")
            body = self.enc_member(k.unignored())
            body = [x.replace(nm, p) for x in body]
            return ["{", "\tconst __typeof__(%s) %s = (%s) ? NULL : %s;" % (nm, p, ign, nm)] + \
                ["\t" + x for x in body] + ["}"]
        if ign:
            raise AssertionError("ignored member %s of kind %s" % (m.name, K))
        if K == "objh":
            return ["SBT_VK_ET(sbt_vk_put_u(e, %s));" % nm]
        if K == "fixstr":
            return ["SBT_VK_ET(sbt_vk_put_fixstr(e, %s, %s));" % (nm, k.fixn)]
        if K == "fixraw":
            return ["SBT_VK_ET(sbt_vk_put_raw(e, %s, sizeof(%s)));" % (nm, nm)]
        if K == "fixarr":
            i = self.t("i")
            return ["for (uint32_t %s = 0; %s < (uint32_t)(%s); %s++) {" % (i, i, k.fixn, i)] + \
                ["\t" + x for x in self.enc_el(k.el, "%s[%s]" % (nm, i))] + ["}"]
        if K == "val" and k.stride_of:
            # the array it strides is written packed (_mark_strided)
            return self.enc_el(k.el, "sizeof(*s->%s)" % k.stride_of)
        if K == "val":
            return self.enc_el(k.el, nm)
        if K == "usel":
            return ["SBT_VK_ET(sbt_vk_e_%s(e, &%s, (int64_t)s->%s));" % (k.el.sname, nm, k.sel)]
        if K == "tbytes":
            return ["SBT_VK_ET(sbt_vk_put_rawarr(e, e->enc->template_data_len ? %s : NULL, "
                    "e->enc->template_data_len, 1));" % nm]
        if K == "ptr":
            return ["SBT_VK_ET(sbt_vk_put_u(e, (uint64_t)(uintptr_t)%s));" % nm]
        if K == "str":
            body = ["SBT_VK_ET(sbt_vk_put_str(e, %s));" % nm]
        elif K == "bytes":
            body = ["SBT_VK_ET(sbt_vk_put_rawarr(e, %s, %s, 1));" % (nm, k.count)]
        elif K == "strarr":
            n, i = self.t("n"), self.t("i")
            body = ["{", "\tconst uint64_t %s = %s;" % (n, k.count),
                    "\tSBT_VK_ET(sbt_vk_put_count(e, %s, %s));" % (nm, n),
                    "\tif (%s)" % nm,
                    "\t\tfor (uint64_t %s = 0; %s < %s; %s++)" % (i, i, n, i),
                    "\t\t\tSBT_VK_ET(sbt_vk_put_str(e, %s[%s]));" % (nm, i), "}"]
        elif K == "single":
            body = ["SBT_VK_ET(sbt_vk_put_count(e, %s, 1));" % nm, "if (%s) {" % nm] + \
                ["\t" + x for x in self.enc_el(k.el, "%s[0]" % nm)] + ["}"]
        elif K == "array":
            if k.el.plain and k.stride:
                body = ["SBT_VK_ET(sbt_vk_put_rawarr_strided(e, %s, %s, sizeof(*%s), %s));"
                        % (nm, k.count, nm, k.stride)]
            elif k.el.plain:
                body = ["SBT_VK_ET(sbt_vk_put_rawarr(e, %s, %s, sizeof(*%s)));" % (nm, k.count, nm)]
            else:
                n, i = self.t("n"), self.t("i")
                body = ["{", "\tconst uint64_t %s = %s;" % (n, k.count),
                        "\tSBT_VK_ET(sbt_vk_put_count(e, %s, %s));" % (nm, n),
                        "\tif (%s)" % nm,
                        "\t\tfor (uint64_t %s = 0; %s < %s; %s++) {" % (i, i, n, i)] + \
                    ["\t\t\t" + x for x in self.enc_el(k.el, "%s[%s]" % (nm, i))] + ["\t\t}", "}"]
        elif K == "ptrarr":
            n, i = self.t("n"), self.t("i")
            body = ["{", "\tconst uint64_t %s = %s;" % (n, k.count),
                    "\tSBT_VK_ET(sbt_vk_put_count(e, %s, %s));" % (nm, n),
                    "\tif (%s)" % nm,
                    "\t\tfor (uint64_t %s = 0; %s < %s; %s++) {" % (i, i, n, i),
                    "\t\t\tSBT_VK_ET(sbt_vk_put_count(e, %s[%s], 1));" % (nm, i),
                    "\t\t\tif (%s[%s]) {" % (nm, i)] + \
                ["\t\t\t\t" + x for x in self.enc_el(k.el, "%s[%s][0]" % (nm, i))] + \
                ["\t\t\t}", "\t\t}", "}"]
        else:
            raise AssertionError(K)
        if k.out:
            return ["if (ok) {"] + ["\t" + x for x in body] + \
                ["} else {", "\tSBT_VK_ET(sbt_vk_put_u(e, 0));", "}"]
        return body

    def _check_lines(self, k, n, p, F, owner=None):
        if not k.check:
            return []
        lines = ["\tif (%s && %s != (uint64_t)(%s))" % (p, n, k.check),
                 "\t\treturn sbt_vk_d_fail(d, SBT_VK_ERR_CORRUPT, \"%s (count differs from its length member)\");" % F]
        absent = _absent_refused(self.cx, k, owner) if owner else None
        if absent:
            lines += ["\tif (%s)" % _and("!" + p, absent),
                      "\t\treturn sbt_vk_d_fail(d, SBT_VK_ERR_INVALID, \"%s (absent while its count is not "
                      "0)\");" % F]
        mo = _ALTLEN_DIV.match(k.m.altlen or "") if k.m is not None else None
        if mo:
            lines += ["\tif (%s && s->%s %% %s != 0)" % (p, mo.group(1), mo.group(2)),
                      "\t\treturn sbt_vk_d_fail(d, SBT_VK_ERR_INVALID, \"%s (%s is not a multiple of %s)\");"
                      % (F, mo.group(1), mo.group(2))]
        return lines

    def dec_member(self, k, owner):
        m = k.m
        K = k.k
        if K == "stype":
            return ["s->sType = %s;" % m.values]
        if K == "pnext":
            c = self.t("c")
            return ["{", "\tvoid *%s = NULL;" % c,
                    "\tSBT_VK_DT(sbt_vk_d_chain(d, &%s, in), \"%s.pNext\");" % (c, owner),
                    "\ts->pNext = %s;" % c, "}"]
        if K == "ret":
            return self.dec_el(k.el, "s->ret", "0", owner + ".ret")
        F = "%s.%s" % (owner, m.name)
        nm = "s->" + m.name
        if K == "objh":
            v = self.t("v")
            return ["{", "\tuint64_t %s;" % v,
                    "\tSBT_VK_DT(sbt_vk_get_handle(d, &%s, (VkObjectType)s->%s, %s), \"%s\");"
                    % (v, k.sel, k.inflag, F),
                    "\t%s = %s;" % (nm, v), "}"]
        if K == "fixstr":
            return ["SBT_VK_DT(sbt_vk_get_fixstr(d, %s, %s), \"%s\");" % (nm, k.fixn, F)]
        if K == "fixraw":
            return ["SBT_VK_DT(sbt_vk_get_raw(d, %s, sizeof(%s)), \"%s\");" % (nm, nm, F)]
        if K == "fixarr":
            i = self.t("i")
            return ["for (uint32_t %s = 0; %s < (uint32_t)(%s); %s++) {" % (i, i, k.fixn, i)] + \
                ["\t" + x for x in self.dec_el(k.el, "%s[%s]" % (nm, i), k.inflag, F)] + ["}"]
        if K == "val" and k.stride_of:
            # the array it strides is always packed here: a recorded stride
            # (an older trace's, a hostile one) must not send the driver
            # reading past it
            return self.dec_el(k.el, nm, k.inflag, F, _req_handle(self.cx, k, owner, 0)) + \
                ["%s = (%s)sizeof(*s->%s);" % (nm, k.el.ctype, k.stride_of)]
        if K == "val":
            return self.dec_el(k.el, nm, k.inflag, F, _req_handle(self.cx, k, owner, 0))
        if K == "usel":
            return ["SBT_VK_DT(sbt_vk_d_%s(d, &%s, (int64_t)s->%s, %s), \"%s\");"
                    % (k.el.sname, nm, k.sel, k.inflag, F)]
        if K in ("tbytes", "bytes"):
            t, n, p = self.t("t"), self.t("n"), self.t("p")
            keep = ["\tif (d->a && %s)" % t, "\t\td->a->template_len = (size_t)%s;" % n] if K == "tbytes" else []
            return ["{", "\tvoid *%s;" % t, "\tuint64_t %s;" % n, "\tint %s;" % p,
                    "\tSBT_VK_DT(sbt_vk_get_rawarr(d, &%s, &%s, &%s, 1), \"%s\");" % (t, n, p, F),
                    "\t%s = %s;" % (nm, t)] + keep + self._check_lines(k, n, p, F, owner) + ["}"]
        if K == "ptr":
            v = self.t("v")
            return ["{", "\tuint64_t %s;" % v,
                    "\tSBT_VK_DT(sbt_vk_get_u(d, &%s), \"%s\");" % (v, F),
                    "\t%s = (%s)(uintptr_t)%s;" % (nm, _fmt_ctype(m.ctype), v), "}"]
        if K == "str":
            t = self.t("t")
            req = _req_pointer(self.cx, k, owner)
            chk = ["\tif (%s)" % _and("!" + t, req),
                   "\t\treturn sbt_vk_d_fail(d, SBT_VK_ERR_INVALID, \"%s (NULL where vk.xml requires "
                   "a string)\");" % F] if req else []
            return ["{", "\tconst char *%s;" % t,
                    "\tSBT_VK_DT(sbt_vk_get_str(d, &%s), \"%s\");" % (t, F)] + chk + \
                ["\t%s = %s;" % (nm, t), "}"]
        if K == "strarr":
            t, n, p, i = self.t("t"), self.t("n"), self.t("p"), self.t("i")
            return ["{", "\tuint64_t %s;" % n, "\tint %s;" % p,
                    "\tSBT_VK_DT(sbt_vk_get_count(d, &%s, &%s, 1), \"%s\");" % (n, p, F),
                    "\tif (%s) {" % p,
                    "\t\tconst char **%s;" % t,
                    "\t\tSBT_VK_DT(sbt_vk_d_alloc(d, %s, sizeof(*%s), (void **)&%s), \"%s\");" % (n, t, t, F),
                    "\t\tfor (uint64_t %s = 0; %s < %s; %s++) {" % (i, i, n, i),
                    "\t\t\tSBT_VK_DT(sbt_vk_get_str(d, &%s[%s]), \"%s\");" % (t, i, F)] + \
                (["\t\t\tif (%s)" % _and("!%s[%s]" % (t, i), _inflag(self.cx, k, owner)),
                  "\t\t\t\treturn sbt_vk_d_fail(d, SBT_VK_ERR_INVALID, \"%s (a NULL string in the "
                  "array)\");" % F] if k.inflag != "0" else []) + \
                ["\t\t}", "\t\t%s = %s;" % (nm, t), "\t}"] + self._check_lines(k, n, p, F, owner) + ["}"]
        T = k.el.ctype
        if K == "single":
            t, n, p = self.t("t"), self.t("n"), self.t("p")
            req = _req_pointer(self.cx, k, owner)
            chk = ["\tif (%s)" % _and("!" + p, req),
                   "\t\treturn sbt_vk_d_fail(d, SBT_VK_ERR_INVALID, \"%s (NULL where vk.xml requires "
                   "a pointer)\");" % F] if req else []
            return ["{", "\tuint64_t %s;" % n, "\tint %s;" % p,
                    "\tSBT_VK_DT(sbt_vk_get_count(d, &%s, &%s, 1), \"%s\");" % (n, p, F)] + chk + [
                    "\tif (%s) {" % p,
                    "\t\t%s *%s;" % (T, t),
                    "\t\tif (%s != 1)" % n,
                    "\t\t\treturn sbt_vk_d_fail(d, SBT_VK_ERR_CORRUPT, \"%s (one element expected)\");" % F,
                    "\t\tSBT_VK_DT(sbt_vk_d_alloc(d, 1, sizeof(*%s), (void **)&%s), \"%s\");" % (t, t, F)] + \
                ["\t\t" + x for x in self.dec_el(k.el, "%s[0]" % t, k.inflag, F)] + \
                ["\t\t%s = %s;" % (nm, t), "\t}", "}"]
        if K == "array":
            t, n, p = self.t("t"), self.t("n"), self.t("p")
            if k.el.plain:
                return ["{", "\tvoid *%s;" % t, "\tuint64_t %s;" % n, "\tint %s;" % p,
                        "\tSBT_VK_DT(sbt_vk_get_rawarr(d, &%s, &%s, &%s, sizeof(%s)), \"%s\");" % (t, n, p, T, F),
                        "\t%s = %s;" % (nm, t)] + self._check_lines(k, n, p, F, owner) + ["}"]
            i = self.t("i")
            return ["{", "\tuint64_t %s;" % n, "\tint %s;" % p,
                    "\tSBT_VK_DT(sbt_vk_get_count(d, &%s, &%s, 1), \"%s\");" % (n, p, F),
                    "\tif (%s) {" % p,
                    "\t\t%s *%s;" % (T, t),
                    "\t\tSBT_VK_DT(sbt_vk_d_alloc(d, %s, sizeof(*%s), (void **)&%s), \"%s\");" % (n, t, t, F),
                    "\t\tfor (uint64_t %s = 0; %s < %s; %s++) {" % (i, i, n, i)] + \
                ["\t\t\t" + x for x in self.dec_el(k.el, "%s[%s]" % (t, i), k.inflag, F,
                                                   _req_handle(self.cx, k, owner, 1))] + \
                ["\t\t}", "\t\t%s = %s;" % (nm, t), "\t}"] + self._check_lines(k, n, p, F, owner) + ["}"]
        if K == "ptrarr":
            t, n, p, i, u, n2, p2 = (self.t("t"), self.t("n"), self.t("p"), self.t("i"),
                                     self.t("u"), self.t("n"), self.t("p"))
            return ["{", "\tuint64_t %s;" % n, "\tint %s;" % p,
                    "\tSBT_VK_DT(sbt_vk_get_count(d, &%s, &%s, 1), \"%s\");" % (n, p, F),
                    "\tif (%s) {" % p,
                    "\t\t%s **%s;" % (T, t),
                    "\t\tSBT_VK_DT(sbt_vk_d_alloc(d, %s, sizeof(*%s), (void **)&%s), \"%s\");" % (n, t, t, F),
                    "\t\tfor (uint64_t %s = 0; %s < %s; %s++) {" % (i, i, n, i),
                    "\t\t\tuint64_t %s;" % n2, "\t\t\tint %s;" % p2,
                    "\t\t\tSBT_VK_DT(sbt_vk_get_count(d, &%s, &%s, 1), \"%s\");" % (n2, p2, F),
                    "\t\t\tif (!%s)" % p2, "\t\t\t\tcontinue;",
                    "\t\t\tif (%s != 1)" % n2,
                    "\t\t\t\treturn sbt_vk_d_fail(d, SBT_VK_ERR_CORRUPT, \"%s (one element expected)\");" % F,
                    "\t\t\t%s *%s;" % (T, u),
                    "\t\t\tSBT_VK_DT(sbt_vk_d_alloc(d, 1, sizeof(*%s), (void **)&%s), \"%s\");" % (u, u, F)] + \
                ["\t\t\t" + x for x in self.dec_el(k.el, "%s[0]" % u, k.inflag, F)] + \
                ["\t\t\t%s[%s] = %s;" % (t, i, u), "\t\t}",
                 "\t\t%s = (const %s *const *)%s;" % (nm, T, t), "\t}"] + \
                self._check_lines(k, n, p, F, owner) + ["}"]
        raise AssertionError(K)

    def pr_member(self, k):
        m = k.m
        K = k.k
        if K == "stype":
            return []
        if K == "pnext":
            return ["if (s->pNext)", "\tsbt_vk_p_chain(pr, s->pNext);"]
        if K == "ret":
            return self.pr_el(k.el, "ret", "s->ret")
        nm = "s->" + m.name
        key = m.name
        if K == "objh":
            return ["sbt_vk_pr_x(pr, \"%s\", %s);" % (key, nm)]
        if K == "fixstr":
            return ["sbt_vk_pr_s(pr, \"%s\", %s, strnlen(%s, %s));" % (key, nm, nm, k.fixn)]
        if K == "fixraw":
            if len(m.array) == 1 and k.el.k in ("u", "i", "e", "f32", "f64") and k.el.bits > 8:
                return self._pr_loop(k.el, key, nm, "(uint64_t)(%s)" % m.array[0])
            return ["sbt_vk_pr_bytes(pr, \"%s\", %s, sizeof(%s));" % (key, nm, nm)]
        if K == "fixarr":
            return self._pr_loop(k.el, key, nm, "(uint64_t)(%s)" % k.fixn)
        if K == "val":
            return self.pr_el(k.el, key, nm)
        if K == "usel":
            mk = self.t("m")
            return ["{", "\tsize_t %s = sbt_vk_pr_enter(pr, \"%s\");" % (mk, key),
                    "\tsbt_vk_p_%s(pr, &%s, (int64_t)s->%s);" % (k.el.sname, nm, k.sel),
                    "\tsbt_vk_pr_pop(pr, %s);" % mk, "}"]
        if K == "tbytes":
            return ["sbt_vk_pr_u(pr, \"%s.present\", %s != NULL);" % (key, nm)]
        if K == "ptr":
            return ["sbt_vk_pr_x(pr, \"%s\", (uint64_t)(uintptr_t)%s);" % (key, nm)]
        null = ["if (!%s) {" % nm, "\tsbt_vk_pr_null(pr, \"%s\");" % key, "} else {"]
        if K == "str":
            return null + ["\tsbt_vk_pr_s(pr, \"%s\", %s, strlen(%s));" % (key, nm, nm), "}"]
        # byte arrays and arrays of scalars may be stored as blobs: shown by reference
        blob = ["} else if (!sbt_vk_pr_blob(pr, \"%s\", %s)) {" % (key, nm)]
        if K == "bytes":
            return null[:2] + blob + ["\tsbt_vk_pr_bytes(pr, \"%s\", %s, (size_t)(%s));" % (key, nm, k.count), "}"]
        if K == "strarr":
            body = self._pr_loop(None, key, nm, k.count, strs=True)
        elif K == "single":
            mk = self.t("m")
            body = ["size_t %s = sbt_vk_pr_enter(pr, \"%s\");" % (mk, key)] + \
                self.pr_el(k.el, "", "%s[0]" % nm) + ["sbt_vk_pr_pop(pr, %s);" % mk]
        elif K == "array":
            null = null[:2] + blob
            if k.el.k == "u" and k.el.bits == 8:
                body = ["sbt_vk_pr_bytes(pr, \"%s\", %s, (size_t)(%s));" % (key, nm, k.count)]
            else:
                body = self._pr_loop(k.el, key, nm, k.count)
        elif K == "ptrarr":
            body = self._pr_loop(k.el, key, nm, k.count, ptrs=True)
        else:
            raise AssertionError(K)
        return null + ["\t" + x for x in body] + ["}"]

    def _pr_loop(self, el, key, nm, count, strs=False, ptrs=False):
        n, i, mk, mi = self.t("n"), self.t("i"), self.t("m"), self.t("m")
        lines = ["{", "\tconst uint64_t %s = %s;" % (n, count),
                 "\tsbt_vk_pr_u(pr, \"%s.count\", %s);" % (key, n),
                 "\tsize_t %s = sbt_vk_pr_enter(pr, \"%s\");" % (mk, key),
                 "\tfor (uint64_t %s = 0; %s < %s && %s < SBT_VK_PR_MAX_ELEMS; %s++) {" % (i, i, n, i, i),
                 "\t\tsize_t %s = sbt_vk_pr_pushi(pr, %s);" % (mi, i)]
        if strs:
            lines += ["\t\tif (%s[%s])" % (nm, i),
                      "\t\t\tsbt_vk_pr_s(pr, \"\", %s[%s], strlen(%s[%s]));" % (nm, i, nm, i),
                      "\t\telse", "\t\t\tsbt_vk_pr_null(pr, \"\");"]
        elif ptrs:
            lines += ["\t\tif (!%s[%s]) {" % (nm, i), "\t\t\tsbt_vk_pr_null(pr, \"\");", "\t\t} else {"] + \
                ["\t\t\t" + x for x in self.pr_el(el, "", "%s[%s][0]" % (nm, i))] + ["\t\t}"]
        else:
            lines += ["\t\t" + x for x in self.pr_el(el, "", "%s[%s]" % (nm, i))]
        lines += ["\t\tsbt_vk_pr_pop(pr, %s);" % mi, "\t}", "\tsbt_vk_pr_pop(pr, %s);" % mk, "}"]
        return lines

    # fill: pass 1 = values, pass 2 = pointers (their counts are set by then)
    def fill_member(self, k, smalls, selectors, owner):
        m = k.m
        K = k.k
        if K == "stype":
            return ["s->sType = %s;" % m.values]
        if K == "pnext":
            return []
        if K == "ret":
            if k.el.ctype == "VkResult":
                return ["s->ret = VK_SUCCESS;"]
            return self.fill_el(k.el, "s->ret")
        nm = "s->" + m.name
        if K == "objh":
            return ["%s = sbt_vk_t_handle(f);" % nm]
        if K == "fixstr":
            return ["sbt_vk_t_fixstr(f, %s, %s);" % (nm, k.fixn)]
        if K == "fixraw":
            return ["sbt_vk_t_bytes(f, %s, sizeof(%s));" % (nm, nm)]
        if K == "fixarr":
            i = self.t("i")
            return ["for (uint32_t %s = 0; %s < (uint32_t)(%s); %s++) {" % (i, i, k.fixn, i)] + \
                ["\t" + x for x in self.fill_el(k.el, "%s[%s]" % (nm, i))] + ["}"]
        if K == "val" and k.stride_of:
            # a stride over the element's size: the encoder gathers
            return ["%s = (%s)(sizeof(*s->%s) + 4 * (sbt_vk_t_rand(f) %% 3));"
                    % (nm, k.el.ctype, k.stride_of)]
        if K == "val":
            if m.name in selectors:
                opts = selectors[m.name]
                return ["{", "\tstatic const int64_t sel_[] = {%s};" % ", ".join(opts),
                        "\t%s = (%s)sel_[sbt_vk_t_rand(f) %% %d];" % (nm, k.el.ctype, len(opts)), "}"]
            return self.fill_el(k.el, nm, smalls.get(m.name), _req_handle(self.cx, k, owner, 0))
        if K == "usel":
            return ["sbt_vk_f_%s(f, &%s, (int64_t)s->%s, depth);" % (k.el.sname, nm, k.sel)]
        if K == "tbytes":
            return ["%s = sbt_vk_t_blob(f, SBT_VK_T_TEMPLATE_LEN);" % nm]
        if K == "ptr":
            return ["%s = (%s)(uintptr_t)sbt_vk_t_rand(f);" % (nm, _fmt_ctype(m.ctype))]
        if K == "str":
            if _req_pointer(self.cx, k, owner):
                return ["%s = sbt_vk_t_str_nonnull(f);" % nm]
            return ["%s = sbt_vk_t_str(f);" % nm]
        if K == "bytes":
            return ["%s = sbt_vk_t_blob(f, (size_t)(%s));" % (nm, k.count)]
        T = k.el.ctype if k.el is not None else None
        if K == "strarr":
            t, i, n = self.t("t"), self.t("i"), self.t("n")
            return ["{", "\tconst uint64_t %s = %s;" % (n, k.count),
                    "\tconst char **%s = sbt_vk_t_alloc(f, %s * sizeof(*%s));" % (t, n, t),
                    "\tfor (uint64_t %s = 0; %s < %s; %s++)" % (i, i, n, i),
                    "\t\t%s[%s] = sbt_vk_t_str%s(f);" % (t, i, "" if k.inflag == "0" else "_nonnull"),
                    "\t%s = %s;" % (nm, t), "}"]
        # what the decoder requires is filled deeper than the rest
        deep = _req_pointer(self.cx, k, owner) if K == "single" else \
            _absent_refused(self.cx, k, owner) if K in COUNTED_KINDS else None
        depth_ok = "depth < SBT_VK_T_MAX_DEPTH%s" % (" + SBT_VK_T_MORE_DEPTH" if deep else "")
        if K == "single":
            t = self.t("t")
            return ["if (%s) {" % depth_ok,
                    "\t%s *%s = sbt_vk_t_alloc(f, sizeof(*%s));" % (T, t, t)] + \
                ["\t" + x for x in self.fill_el(k.el, "%s[0]" % t, smalls.get(m.name))] + \
                ["\t%s = %s;" % (nm, t), "}"]
        if K == "array" and k.stride:
            t, i, n = self.t("t"), self.t("i"), self.t("n")
            return ["if (%s) {" % depth_ok,
                    "\tconst uint64_t %s = %s;" % (n, k.count),
                    "\tuint8_t *%s = sbt_vk_t_alloc(f, %s * (size_t)%s);" % (t, n, k.stride),
                    "\tfor (uint64_t %s = 0; %s < %s; %s++)" % (i, i, n, i),
                    "\t\tsbt_vk_t_bytes(f, %s + %s * (size_t)%s, sizeof(*%s));" % (t, i, k.stride, nm),
                    "\t%s = (const %s *)(const void *)%s;" % (nm, T, t), "}"]
        if K == "array":
            t, i, n = self.t("t"), self.t("i"), self.t("n")
            return ["if (%s) {" % depth_ok,
                    "\tconst uint64_t %s = %s;" % (n, k.count),
                    "\t%s *%s = sbt_vk_t_alloc(f, %s * sizeof(*%s));" % (T, t, n, t),
                    "\tfor (uint64_t %s = 0; %s < %s; %s++) {" % (i, i, n, i)] + \
                ["\t\t" + x for x in self.fill_el(k.el, "%s[%s]" % (t, i), None,
                                                   _req_handle(self.cx, k, owner, 1))] + \
                ["\t}", "\t%s = %s;" % (nm, t), "}"]
        if K == "ptrarr":
            t, i, n, u = self.t("t"), self.t("i"), self.t("n"), self.t("u")
            return ["if (%s) {" % depth_ok,
                    "\tconst uint64_t %s = %s;" % (n, k.count),
                    "\t%s **%s = sbt_vk_t_alloc(f, %s * sizeof(*%s));" % (T, t, n, t),
                    "\tfor (uint64_t %s = 0; %s < %s; %s++) {" % (i, i, n, i),
                    "\t\t%s *%s = sbt_vk_t_alloc(f, sizeof(*%s));" % (T, u, u)] + \
                ["\t\t" + x for x in self.fill_el(k.el, "%s[0]" % u)] + \
                ["\t\t%s[%s] = %s;" % (t, i, u), "\t}",
                 "\t%s = (const %s *const *)%s;" % (nm, T, t), "}"]
        raise AssertionError(K)

    def cmp_member(self, k, owner):
        """Compare member k of a (original) and b (decoded).  An ignored member
        must come back absent (a context or dynamic-state rule: absent or equal)."""
        if k.m is None or not (k.ign or k.ign_ctx or k.ign_par):
            return self._cmp_member(k, owner)
        normal = self._cmp_member(k.unignored(), owner)
        B = "b->" + k.m.name
        if k.k == "val":
            absent = "%s != (__typeof__(%s))%s" % (B, B, k.absent or "0")
        else:
            absent = B
        fail = "\treturn sbt_vk_t_fail(c, \"%s.%s (ignored, not absent)\");" % (owner, k.m.name)
        if (k.ign_ctx or k.ign_par) and not k.ign:
            # encoded outside its command (or with its state static): as
            # usual; inside (dynamic): absent
            return ["if (%s) {" % absent] + ["\t" + x for x in normal] + ["}"]
        ign = k.ign.replace("s->", "a->")
        # a context or dynamic-state rule on top: otherwise absent or equal
        other = "} else if (%s) {" % absent if (k.ign_ctx or k.ign_par) else "} else {"
        return ["if (%s) {" % ign, "\tif (%s)" % absent, "\t" + fail, other] + \
            ["\t" + x for x in normal] + ["}"]

    def _cmp_member(self, k, owner):
        m = k.m
        K = k.k
        if K == "ret":
            F = owner + ".ret"
            return ["if (%s)" % self.cmp_el(k.el, "a->ret", "b->ret", "0"),
                    "\treturn sbt_vk_t_fail(c, \"%s\");" % F]
        F = "%s.%s" % (owner, m.name)
        A, B = "a->" + m.name, "b->" + m.name
        fail = "\treturn sbt_vk_t_fail(c, \"%s\");" % F
        if K == "stype":
            return ["if (a->sType != b->sType)", fail]
        if K == "pnext":
            return ["if (sbt_vk_c_chain(c, a->pNext, b->pNext, in))", fail]
        if K == "objh":
            return ["if (%s != sbt_vk_t_mapped(%s, %s))" % (B, A, k.inflag), fail]
        if K == "fixstr":
            return ["if (strncmp(%s, %s, %s) != 0)" % (A, B, k.fixn), fail]
        if K == "fixraw":
            return ["if (memcmp(%s, %s, sizeof(%s)) != 0)" % (A, B, A), fail]
        if K == "fixarr":
            i = self.t("i")
            return ["for (uint32_t %s = 0; %s < (uint32_t)(%s); %s++)" % (i, i, k.fixn, i),
                    "\tif (%s)" % self.cmp_el(k.el, "%s[%s]" % (A, i), "%s[%s]" % (B, i), k.inflag),
                    "\t" + fail]
        if K == "val" and k.stride_of:
            # written as the element's size: the array comes back packed
            return ["if (%s != sizeof(*b->%s))" % (B, k.stride_of), fail]
        if K == "val":
            return ["if (%s)" % self.cmp_el(k.el, A, B, k.inflag), fail]
        if K == "usel":
            return ["if (sbt_vk_c_%s(c, &%s, &%s, (int64_t)a->%s, %s))" % (k.el.sname, A, B, k.sel, k.inflag), fail]
        if K == "tbytes":
            return ["if (!%s != !%s || (%s && memcmp(%s, %s, SBT_VK_T_TEMPLATE_LEN) != 0))" % (A, B, A, A, B), fail]
        if K == "ptr":
            return ["if ((uintptr_t)%s != (uintptr_t)%s)" % (A, B), fail]
        if K == "str":
            return ["if (sbt_vk_t_strdiff(%s, %s))" % (A, B), fail]
        cnt = k.count.replace("s->", "a->") if k.count else None
        pres = ["if (!%s != !%s)" % (A, B), fail]
        if K == "bytes":
            return pres + ["if (%s && memcmp(%s, %s, (size_t)(%s)) != 0)" % (A, A, B, cnt), fail]
        if K == "strarr":
            i = self.t("i")
            return pres + ["if (%s)" % A,
                           "\tfor (uint64_t %s = 0; %s < %s; %s++)" % (i, i, cnt, i),
                           "\t\tif (sbt_vk_t_strdiff(%s[%s], %s[%s]))" % (A, i, B, i), "\t\t" + fail]
        if K == "single":
            return pres + ["if (%s && (%s))" % (A, self.cmp_el(k.el, "%s[0]" % A, "%s[0]" % B, k.inflag)), fail]
        if K == "array":
            if k.el.plain and k.stride:
                i = self.t("i")
                st = k.stride.replace("s->", "a->")
                return pres + ["if (%s)" % A,
                               "\tfor (uint64_t %s = 0; %s < %s; %s++)" % (i, i, cnt, i),
                               "\t\tif (memcmp((const uint8_t *)%s + %s * (size_t)%s, &%s[%s], sizeof(*%s)) != 0)"
                               % (A, i, st, B, i, B),
                               "\t\t" + fail]
            if k.el.plain:
                return pres + ["if (%s && memcmp(%s, %s, (size_t)(%s) * sizeof(*%s)) != 0)" % (A, A, B, cnt, A), fail]
            i = self.t("i")
            return pres + ["if (%s)" % A,
                           "\tfor (uint64_t %s = 0; %s < %s; %s++)" % (i, i, cnt, i),
                           "\t\tif (%s)" % self.cmp_el(k.el, "%s[%s]" % (A, i), "%s[%s]" % (B, i), k.inflag),
                           "\t\t" + fail]
        if K == "ptrarr":
            i = self.t("i")
            return pres + ["if (%s)" % A,
                           "\tfor (uint64_t %s = 0; %s < %s; %s++) {" % (i, i, cnt, i),
                           "\t\tif (!%s[%s] != !%s[%s])" % (A, i, B, i), "\t\t" + fail,
                           "\t\tif (%s[%s] && (%s))" % (A, i, self.cmp_el(k.el, "%s[%s][0]" % (A, i),
                                                                       "%s[%s][0]" % (B, i), k.inflag)),
                           "\t\t" + fail, "\t}"]
        raise AssertionError(K)


# ============================================================================
# Files
# ============================================================================

def banner(cx):
    return ("/* generated by scripts/vkgen/gen.py from vk.xml %s \u2014 do not edit */" % cx.version)


PLATFORM_DEFINES = ["#define %s 1" % ov.PLATFORMS_INCLUDED[p][0] for p in sorted(ov.PLATFORMS_INCLUDED)]


def _struct_class(cx, name):
    s = cx.reg.structs[name]
    if s.is_union:
        return "selunion" if cx._union_has_selection(s) else "rawunion"
    if cx._struct_plain(name):
        return "plain"
    return "normal"


def _smalls(cx):
    """(owner -> {member: C expr}) for members that are array lengths, so the
    self-test keeps arrays short and consistent."""
    reg = cx.reg
    small = {}

    def add(owner, name):
        small.setdefault(owner, {})[name] = ov.SELFTEST_LEN_SOURCES.get(name, "sbt_vk_t_rand(f) % 4")

    def scan(owner, members):
        names = [m.name for m in members]
        for m in members:
            if not m.len or m.len[0] == "null-terminated":
                continue
            if m.altlen:
                for w in re.findall(r"[A-Za-z_]\w*", m.altlen):
                    if w in names:
                        add(owner, w)
                continue
            l = m.len[0]
            if "->" in l:
                a, b = l.split("->", 1)
                if a in names:
                    add(reg.resolve(members[names.index(a)].type), b)
            elif l in names:
                add(owner, l)
    for n in cx.structs:
        scan(n, reg.structs[n].members)
    for n in reg.commands:
        scan(n, reg.commands[n].params)
    return small


def _selectors(cx, name):
    sel = {}
    for k in cx.struct_kinds.get(name, []):
        if k.k == "usel":
            u = cx.reg.struct(k.el.sname)
            opts = []
            for m in u.members:
                opts.extend(m.selection)
            sel[k.sel] = opts
    return sel


def _cmd_canon(cx, name):
    cmd = cx.reg.commands[name]
    return cmd.alias if cmd.alias and cx.reg.commands.get(cmd.alias) else name


def gen_header(cx):
    reg = cx.reg
    L = [banner(cx), "/*",
         " * sbt_vk_codec.h - command ids and argument structs of the Vulkan codec.",
         " * Included through serializer/sbt_vk.h, which documents the interface.",
         " */",
         "#ifndef TRACESMITH_SBT_VK_CODEC_H", "#define TRACESMITH_SBT_VK_CODEC_H", ""]
    for p in sorted(ov.PLATFORMS_INCLUDED):
        macro, hdr = ov.PLATFORMS_INCLUDED[p]
        L += ["#ifdef %s" % macro, "#include <%s>" % hdr,
              "#include <vulkan/vulkan_%s.h>" % p, "#endif"]
    L += ["", "#define SBT_VK_VKXML_VERSION \"%s\"" % cx.version, "",
          "/* Every command of vk.xml (API \"vulkan\"), in vk.xml order. */",
          "enum sbt_vk_cmd {"]
    for i, n in enumerate(reg.commands):
        L.append("\tSBT_VK_CMD_%s = %d," % (n, i))
    L += ["\tSBT_VK_CMD_COUNT = %d" % len(reg.commands), "};", ""]
    L += ["struct sbt_vk_enc;", ""]
    emitted = set()
    for n, cmd in reg.commands.items():
        if not cx.args_exist(n):
            continue
        macro = cx.cmd_platform_macro(n)
        if macro:
            L.append("#ifdef %s" % macro)
        canon = _cmd_canon(cx, n)
        if canon != n and canon in emitted:
            L.append("typedef sbt_vk_args_%s sbt_vk_args_%s;" % (canon, n))
        else:
            L.append("typedef struct sbt_vk_args_%s {" % n)
            L += cx.args_decl(cmd)
            L.append("} sbt_vk_args_%s;" % n)
            emitted.add(n)
        if not cx.cmd_reason[n]:
            L.append("sbt_vk_status sbt_vk_encode_%s(struct sbt_vk_enc *enc, const sbt_vk_args_%s *args);" % (n, n))
        if macro:
            L.append("#endif")
        L.append("")
    L += ["#endif /* TRACESMITH_SBT_VK_CODEC_H */", ""]
    return "\n".join(L)


def _args_exist(self, name):
    if not self.reg.available(name) or self.plat_excluded(name):
        return False
    return True


Codec.args_exist = _args_exist


def gen_internal_header(cx):
    L = [banner(cx), "/*",
         " * sbt_vk_codec_internal.h - per-struct functions shared by the generated",
         " * codec, dump and self-test files.  Not for other modules.",
         " */",
         "#ifndef TRACESMITH_SBT_VK_CODEC_INTERNAL_H", "#define TRACESMITH_SBT_VK_CODEC_INTERNAL_H", "",
         "#include \"serializer/sbt_vk_internal.h\"",
         "#include \"serializer/generated/sbt_vk_ignored.h\"", "",
         "sbt_vk_status sbt_vk_e_chain(sbt_vk_e *e, const void *pnext);",
         "sbt_vk_status sbt_vk_d_chain(sbt_vk_d *d, void **out, int in);"]
    for n in cx.structs:
        cls = _struct_class(cx, n)
        if cls == "selunion":
            L.append("sbt_vk_status sbt_vk_e_%s(sbt_vk_e *e, const %s *s, int64_t sel);" % (n, n))
            L.append("sbt_vk_status sbt_vk_d_%s(sbt_vk_d *d, %s *s, int64_t sel, int in);" % (n, n))
        else:
            L.append("sbt_vk_status sbt_vk_e_%s(sbt_vk_e *e, const %s *s);" % (n, n))
            L.append("sbt_vk_status sbt_vk_d_%s(sbt_vk_d *d, %s *s, int in);" % (n, n))
    L += ["", "#endif /* TRACESMITH_SBT_VK_CODEC_INTERNAL_H */", ""]
    return "\n".join(L)


_PUT_RE = re.compile(r"^SBT_VK_ET\(sbt_vk_put_([ui])\(e, (.*)\)\);$")


def _batch_puts(lines):
    """Runs of two or more varint puts at the top of an encoder share one
    room check (10 bytes a varint), then write unchecked (sbt_vk_putq_*):
    fewer branches on the per-call path, where most vkCmd* records are a
    handful of scalars."""
    out, run = [], []

    def flush():
        if len(run) >= 2:
            out.append("SBT_VK_ET(sbt_vk_e_need(e, %d));" % (10 * len(run)))
            out.extend("sbt_vk_putq_%s(e, %s);" % (k, x) for k, x in run)
        else:
            out.extend("SBT_VK_ET(sbt_vk_put_%s(e, %s));" % (k, x) for k, x in run)
        del run[:]
    for ln in lines:
        m = _PUT_RE.match(ln)
        if m:
            run.append((m.group(1), m.group(2)))
        else:
            flush()
            out.append(ln)
    flush()
    return out


def _fn(lines, head, body, tail=("\treturn SBT_VK_OK;", "}")):
    lines.append(head)
    lines.append("{")
    lines.extend("\t" + x for x in body)
    lines.extend(tail)
    lines.append("")


def gen_codec_c(cx):
    reg = cx.reg
    em = Emit(cx)
    L = [banner(cx), "/*",
         " * sbt_vk_codec.c - encoders and decoders of every carried Vulkan command",
         " * and of every struct reachable from them.  Wire forms: serializer/sbt_vk_internal.h",
         " * and docs/vulkan-codec.md.",
         " */"] + PLATFORM_DEFINES + [
         "#include <stdlib.h>", "#include <string.h>", "",
         "#include \"serializer/generated/sbt_vk_codec_internal.h\"", "",
         "/* Bodies of structs with a pNext chain (the chain is walked by the caller). */"]
    pn = [n for n in cx.structs if _struct_class(cx, n) == "normal" and reg.structs[n].has_pnext]
    for n in pn:
        L.append("static sbt_vk_status sbt_vk_eb_%s(sbt_vk_e *e, const %s *s);" % (n, n))
        L.append("static sbt_vk_status sbt_vk_db_%s(sbt_vk_d *d, %s *s, int in);" % (n, n))
    L.append("")
    # chain
    body = ["for (const VkBaseInStructure *b = pnext; b; b = b->pNext) {", "\tswitch (b->sType) {"]
    for n in cx.chain_structs:
        st = reg.structs[n].stype
        body += ["\tcase %s:" % st,
                 "\t\tSBT_VK_ET(sbt_vk_put_u(e, (uint64_t)%s + 1));" % st,
                 "\t\tSBT_VK_ET(sbt_vk_eb_%s(e, (const %s *)(const void *)b));" % (n, n) if n in pn else
                 "\t\tSBT_VK_ET(sbt_vk_e_%s(e, (const %s *)(const void *)b));" % (n, n),
                 "\t\tbreak;"]
    body += ["\tdefault:", "\t\tsbt_vk_e_skipped(e, b->sType);", "\t\tbreak;", "\t}", "}"]
    _fn(L, "sbt_vk_status sbt_vk_e_chain(sbt_vk_e *e, const void *pnext)", body,
        ("\treturn sbt_vk_put_u(e, 0);", "}"))
    body = ["VkBaseOutStructure *head = NULL, *tail = NULL;", "for (;;) {", "\tuint64_t tag;",
            "\tSBT_VK_DT(sbt_vk_get_u(d, &tag), \"pNext\");", "\tif (tag == 0)", "\t\tbreak;",
            "\tVkBaseOutStructure *n = NULL;", "\tswitch (tag - 1) {"]
    for n in cx.chain_structs:
        st = reg.structs[n].stype
        fn = ("sbt_vk_db_%s" if n in pn else "sbt_vk_d_%s") % n
        body += ["\tcase %s: {" % st, "\t\t%s *t;" % n,
                 "\t\tSBT_VK_DT(sbt_vk_d_alloc(d, 1, sizeof(*t), (void **)&t), \"pNext\");",
                 "\t\tSBT_VK_DT(%s(d, t, in), \"pNext\");" % fn,
                 "\t\tn = (VkBaseOutStructure *)(void *)t;", "\t\tbreak;", "\t}"]
    body += ["\tdefault:",
             "\t\treturn sbt_vk_d_fail(d, SBT_VK_ERR_UNSUPPORTED, \"pNext (sType not carried)\");",
             "\t}", "\tif (tail)", "\t\ttail->pNext = n;", "\telse", "\t\thead = n;", "\ttail = n;", "}",
             "*out = head;"]
    _fn(L, "sbt_vk_status sbt_vk_d_chain(sbt_vk_d *d, void **out, int in)", body)
    # structs
    for n in cx.structs:
        cls = _struct_class(cx, n)
        kinds = cx.struct_kinds.get(n, [])
        if cls in ("plain", "rawunion"):
            _fn(L, "sbt_vk_status sbt_vk_e_%s(sbt_vk_e *e, const %s *s)" % (n, n),
                [], ("\treturn sbt_vk_put_raw(e, s, sizeof(*s));", "}"))
            _fn(L, "sbt_vk_status sbt_vk_d_%s(sbt_vk_d *d, %s *s, int in)" % (n, n),
                ["(void)in;", "SBT_VK_DT(sbt_vk_get_raw(d, s, sizeof(*s)), \"%s\");" % n])
            continue
        if cls == "selunion":
            eb, db = ["switch (sel) {"], ["(void)in;", "switch (sel) {"]
            for k in kinds:
                if not k.m.selection:
                    continue
                cases = ["case %s:" % v for v in k.m.selection]
                eb += cases + ["\t" + x for x in em.enc_member(k)] + ["\tbreak;"]
                db += cases + ["\t" + x for x in em.dec_member(k, n)] + ["\tbreak;"]
            eb += ["default:", "\tbreak;", "}"]
            db += ["default:", "\tbreak;", "}"]
            _fn(L, "sbt_vk_status sbt_vk_e_%s(sbt_vk_e *e, const %s *s, int64_t sel)" % (n, n), eb)
            _fn(L, "sbt_vk_status sbt_vk_d_%s(sbt_vk_d *d, %s *s, int64_t sel, int in)" % (n, n), db)
            continue
        eb, db = ["(void)e;", "(void)s;"], ["(void)d;", "(void)in;"]
        for k in kinds:
            if k.k == "pnext":
                continue
            eb += em.enc_member(k)
            db += em.dec_member(k, n)
        if n in IGNORED_PARENTS:
            # the parent of parent rules (overrides.IGNORED_MEMBERS)
            eb = ["const void *const parent0 = e->parent;", "const int parent_id0 = e->parent_id;",
                  "e->parent = s;", "e->parent_id = %d;" % (IGNORED_PARENTS.index(n) + 1)] + \
                eb + ["e->parent = parent0;", "e->parent_id = parent_id0;"]
        eb = _batch_puts(eb)
        if n in pn:
            _fn(L, "static sbt_vk_status sbt_vk_eb_%s(sbt_vk_e *e, const %s *s)" % (n, n), eb)
            _fn(L, "static sbt_vk_status sbt_vk_db_%s(sbt_vk_d *d, %s *s, int in)" % (n, n), db)
            _fn(L, "sbt_vk_status sbt_vk_e_%s(sbt_vk_e *e, const %s *s)" % (n, n),
                ["SBT_VK_ET(sbt_vk_eb_%s(e, s));" % n], ("\treturn sbt_vk_e_chain(e, s->pNext);", "}"))
            c = em.t("c")
            _fn(L, "sbt_vk_status sbt_vk_d_%s(sbt_vk_d *d, %s *s, int in)" % (n, n),
                ["SBT_VK_DT(sbt_vk_db_%s(d, s, in), \"%s\");" % (n, n), "void *%s = NULL;" % c,
                 "SBT_VK_DT(sbt_vk_d_chain(d, &%s, in), \"%s.pNext\");" % (c, n), "s->pNext = %s;" % c])
        else:
            _fn(L, "sbt_vk_status sbt_vk_e_%s(sbt_vk_e *e, const %s *s)" % (n, n), eb)
            _fn(L, "sbt_vk_status sbt_vk_d_%s(sbt_vk_d *d, %s *s, int in)" % (n, n), db)
    # commands
    carried = cx.carried_commands()
    done = set()
    for n in carried:
        canon = _cmd_canon(cx, n)
        if canon != n and not cx.cmd_reason.get(canon) and cx.args_exist(canon):
            _fn(L, "sbt_vk_status sbt_vk_encode_%s(sbt_vk_enc *enc, const sbt_vk_args_%s *args)" % (n, n),
                [], ("\treturn sbt_vk_encode_%s(enc, args);" % canon, "}"))
            continue
        done.add(n)
        cmd = reg.commands[n]
        kinds = cx.cmd_kinds[n]
        eb = []
        if n in IGNORED_CONTEXTS:
            eb.append("e->ctx = %d; /* members ignored inside %s (overrides.IGNORED_MEMBERS) */"
                      % (IGNORED_CONTEXTS.index(n) + 1, n))
        if any(k.out for k in kinds):
            if cmd.ret == "VkResult":
                eb.append("const int ok = s->ret >= 0; /* outputs are undefined after a failure */")
            else:
                eb.append("const int ok = 1;")
        db = []
        for k in kinds:
            eb += em.enc_member(k)
            db += em.dec_member(k, n)
        if not eb:
            eb = ["(void)e;", "(void)s;"]
        if not db:
            db = ["(void)d;", "(void)s;"]
        _fn(L, "static inline SBT_VK_MAYBE_UNUSED sbt_vk_status sbt_vk_ec_%s(sbt_vk_e *e, const sbt_vk_args_%s *s)" % (n, n),
            _batch_puts(eb))
        _fn(L, "sbt_vk_status sbt_vk_encode_%s(sbt_vk_enc *enc, const sbt_vk_args_%s *args)" % (n, n),
            ["sbt_vk_e e;", "sbt_vk_e_begin(&e, enc);",
             "if (SBT_VK_UNLIKELY(sbt_vk_ec_%s(&e, args) != SBT_VK_OK))" % n,
             "\treturn SBT_VK_ERR_NOMEM;", "sbt_vk_e_commit(&e);"])
        # Cleared here, at a size the compiler knows (a few stores), not by
        # sbt_vk_decode at a size from a table (a call to memset).
        _fn(L, "static sbt_vk_status sbt_vk_dc_%s(sbt_vk_d *d, sbt_vk_args_%s *s)" % (n, n),
            ["memset(s, 0, sizeof(*s));"] + db)
    # tables
    names = list(reg.commands)
    L.append("static const char *const sbt_vk_type_names[SBT_VK_CMD_COUNT] = {")
    L += ["\t\"vulkan.%s\"," % n for n in names]
    L += ["};", ""]
    L.append("static const size_t sbt_vk_args_sizes[SBT_VK_CMD_COUNT] = {")
    L += ["\t%s," % ("sizeof(sbt_vk_args_%s)" % n if cx.args_exist(n) else "0") for n in names]
    L += ["};", ""]
    L.append("static const uint8_t sbt_vk_carried[SBT_VK_CMD_COUNT] = {")
    L += ["\t%d, /* %s */" % (0 if cx.cmd_reason[n] else 1, n) for n in names]
    L += ["};", ""]
    order = sorted(range(len(names)), key=lambda i: names[i])
    L.append("/* Command ids sorted by name, for sbt_vk_cmd_by_name. */")
    L.append("static const uint16_t sbt_vk_by_name[SBT_VK_CMD_COUNT] = {")
    L += ["\t%d," % i for i in order]
    L += ["};", ""]
    L.append("static const sbt_vk_type_desc sbt_vk_type_table[SBT_VK_CMD_COUNT + 4] = {")
    L.append("\t{SBT_VK_TYPE_TS_MEMORY_WRITE, SBT_VK_TS_MEMORY_WRITE_NAME},")
    L.append("\t{SBT_VK_TYPE_TS_RESULT, SBT_VK_TS_RESULT_NAME},")
    L.append("\t{SBT_VK_TYPE_TS_QUERY_RESULTS, SBT_VK_TS_QUERY_RESULTS_NAME},")
    L.append("\t{SBT_VK_TYPE_TS_MEMORY_WRITES, SBT_VK_TS_MEMORY_WRITES_NAME},")
    L += ["\t{SBT_VK_TYPE_BASE + %du, \"vulkan.%s\"}," % (i, n) for i, n in enumerate(names)]
    L += ["};", ""]
    exts = sorted(n for n, w in cx.ext_reason.items() if w is None)
    L.append("/* Extensions the codec carries, sorted. */")
    L.append("static const char *const sbt_vk_exts[%d] = {" % len(exts))
    L += ["\t\"%s\"," % x for x in exts]
    L += ["};", ""]
    L += ["const char *sbt_vk_cmd_type_name(enum sbt_vk_cmd cmd)", "{",
          "\tif ((unsigned)cmd >= SBT_VK_CMD_COUNT)", "\t\treturn NULL;",
          "\treturn sbt_vk_type_names[cmd];", "}", "",
          "const char *sbt_vk_cmd_name(enum sbt_vk_cmd cmd)", "{",
          "\tconst char *n = sbt_vk_cmd_type_name(cmd);",
          "\treturn n ? n + 7 : NULL;", "}", "",
          "size_t sbt_vk_args_size(enum sbt_vk_cmd cmd)", "{",
          "\tif ((unsigned)cmd >= SBT_VK_CMD_COUNT)", "\t\treturn 0;",
          "\treturn sbt_vk_args_sizes[cmd];", "}", "",
          "int sbt_vk_cmd_by_name(const char *name, enum sbt_vk_cmd *cmd_out)", "{",
          "\tif (!name)", "\t\treturn -1;",
          "\tif (strncmp(name, \"vulkan.\", 7) == 0)", "\t\tname += 7;",
          "\tsize_t lo = 0, hi = SBT_VK_CMD_COUNT;",
          "\twhile (lo < hi) {",
          "\t\tsize_t mid = lo + (hi - lo) / 2;",
          "\t\tint c = strcmp(name, sbt_vk_type_names[sbt_vk_by_name[mid]] + 7);",
          "\t\tif (c == 0) {", "\t\t\tif (cmd_out)",
          "\t\t\t\t*cmd_out = (enum sbt_vk_cmd)sbt_vk_by_name[mid];", "\t\t\treturn 0;", "\t\t}",
          "\t\tif (c < 0)", "\t\t\thi = mid;", "\t\telse", "\t\t\tlo = mid + 1;", "\t}",
          "\treturn -1;", "}", "",
          "const sbt_vk_type_desc *sbt_vk_types(size_t *count_out)", "{",
          "\tif (count_out)", "\t\t*count_out = SBT_VK_CMD_COUNT + 4;",
          "\treturn sbt_vk_type_table;", "}", "",
          "sbt_status sbt_vk_define_types(sbt_writer *w)", "{",
          "\tfor (size_t i = 0; i < SBT_VK_CMD_COUNT + 4; i++) {",
          "\t\tsbt_status st = sbt_writer_define_type(w, sbt_vk_type_table[i].type, sbt_vk_type_table[i].name);",
          "\t\tif (st != SBT_OK)", "\t\t\treturn st;", "\t}", "\treturn SBT_OK;", "}", "",
          "int sbt_vk_cmd_carried(enum sbt_vk_cmd cmd)", "{",
          "\treturn (unsigned)cmd < SBT_VK_CMD_COUNT && sbt_vk_carried[cmd];", "}", "",
          "int sbt_vk_cmd_carried_by_name(const char *name)", "{",
          "\tenum sbt_vk_cmd c;", "\treturn sbt_vk_cmd_by_name(name, &c) == 0 && sbt_vk_carried[c];", "}", "",
          "static int sbt_vk_ext_cmp(const void *k, const void *e)", "{",
          "\treturn strcmp((const char *)k, *(const char *const *)e);", "}", "",
          "int sbt_vk_extension_carried(const char *name)", "{",
          "\treturn name && bsearch(name, sbt_vk_exts, sizeof(sbt_vk_exts) / sizeof(sbt_vk_exts[0]),",
          "\t                       sizeof(sbt_vk_exts[0]), sbt_vk_ext_cmp) != NULL;", "}", "",
          "int sbt_vk_stype_carried(VkStructureType stype)", "{", "\tswitch (stype) {"]
    for n in cx.structs:
        st = reg.structs[n].stype
        if st:
            L.append("\tcase %s:" % st)
    L += ["\t\treturn 1;", "\tdefault:", "\t\treturn 0;", "\t}", "}", ""]
    L += _gen_flat(cx, carried)
    L += ["sbt_vk_status sbt_vk_encode(sbt_vk_enc *e, enum sbt_vk_cmd cmd, const void *args)", "{",
          "\tif (!e || !args)", "\t\treturn SBT_VK_ERR_ARG;", "\tswitch (cmd) {"]
    for n in carried:
        L += ["\tcase SBT_VK_CMD_%s:" % n, "\t\treturn sbt_vk_encode_%s(e, args);" % n]
    L += ["\tdefault:", "\t\treturn SBT_VK_ERR_UNSUPPORTED;", "\t}", "}", ""]
    L += ["sbt_vk_status sbt_vk_decode(enum sbt_vk_cmd cmd, const uint8_t *p, size_t len,",
          "                            sbt_vk_arena *a, void *args_out,",
          "                            const sbt_vk_decode_hooks *hooks)", "{",
          "\tif (!a || !args_out || (!p && len) || (unsigned)cmd >= SBT_VK_CMD_COUNT)",
          "\t\treturn SBT_VK_ERR_ARG;",
          "\tif (!sbt_vk_carried[cmd])", "\t\treturn SBT_VK_ERR_UNSUPPORTED;",
          "\tsbt_vk_d d;", "\tsbt_vk_d_start(&d, p, len, a, hooks);",
          "\t/* each sbt_vk_dc_* clears args_out first */",
          "\tsbt_vk_status st;", "\tswitch (cmd) {"]
    for n in carried:
        canon = n if n in done else _cmd_canon(cx, n)
        L += ["\tcase SBT_VK_CMD_%s:" % n, "\t\tst = sbt_vk_dc_%s(&d, args_out);" % canon, "\t\tbreak;"]
    L += ["\tdefault:", "\t\treturn SBT_VK_ERR_UNSUPPORTED;", "\t}",
          "\tif (st != SBT_VK_OK)", "\t\treturn st;",
          "\tif (d.p != d.end)",
          "\t\treturn sbt_vk_d_fail(&d, SBT_VK_ERR_CORRUPT, \"bytes after the last parameter\");",
          "\treturn SBT_VK_OK;", "}", ""]
    at = L.index("/* Bodies of structs with a pNext chain (the chain is walked by the caller). */")
    L[at:at] = _gen_known_enums(cx, sorted(em.known_enums))
    L += _gen_known_dynamic_state(cx)
    return "\n".join(L)


def _gen_known_dynamic_state(cx):
    """sbt_vk_known_dynamic_state (sbt_vk.h): the replay refuses a dynamic
    state vk.xml does not name (drivers index tables with it)."""
    e = cx.reg.enums.get("VkDynamicState")
    vals = sorted({v.value for v in e.values.values() if v.value is not None}) if e else []
    L = ["int sbt_vk_known_dynamic_state(int64_t v)", "{", "\tswitch (v) {"]
    L += ["\tcase %d:" % v for v in vals]
    L += ["\t\treturn 1;", "\tdefault:", "\t\treturn 0;", "\t}", "}", ""]
    return L


def _gen_known_enums(cx, enums):
    """sbt_vk_known_<Enum>: whether vk.xml names the value (any extension,
    any platform: a value the decoder does not know passes with a warning,
    sbt_vk_d_unknown_enum)."""
    L = ["/* Values vk.xml %s names, per enum the decoder reads. */" % cx.version]
    for en in enums:
        e = cx.reg.enums.get(en)
        vals = sorted({v.value for v in e.values.values() if v.value is not None}) if e else []
        L += ["static inline int sbt_vk_known_%s(int64_t v)" % en, "{", "\tswitch (v) {"]
        L += ["\tcase %d:" % v for v in vals]
        L += ["\t\treturn 1;", "\tdefault:", "\t\treturn 0;", "\t}", "}", ""]
    return L


def _enum_values(cx, ename):
    reg = cx.reg
    en = reg.enums.get(ename)
    if en is None:
        return []
    out, seen = [], set()
    for v in en.values.values():
        if v.alias or v.value is None:
            continue
        if v.ext is not None:
            x = reg.extensions.get(v.ext)
            if x is None or "vulkan" not in x.supported or x.provisional or x.platform == "provisional":
                continue
        if v.value in seen:
            continue
        seen.add(v.value)
        out.append(v.name)
    return out


def _flat_form(cx, n):
    """(array Kind or None) when command n's arguments are flat: every
    parameter a scalar, enum, handle or plain value, plus at most one
    pointer to plain elements counted by other parameters; False when not."""
    arr = None
    for k in cx.cmd_kinds[n]:
        if k.stride or k.stride_of:
            return False  # the array is gathered by the encoder
        if k.k == "val" and (k.el.plain or k.el.k == "h"):
            continue
        if k.k in ("bytes", "array") and not k.out and (k.k == "bytes" or k.el.plain) and arr is None:
            arr = k
            continue
        return False
    return arr


def _gen_flat(cx, carried):
    """sbt_vk_flat: the flat form of the vkCmd* arguments that have one."""
    L = ["size_t sbt_vk_flat(enum sbt_vk_cmd cmd, const void *args, const void **array_out,",
         "                   size_t *array_len_out, size_t *ptr_off_out)", "{",
         "\t*array_out = NULL;", "\t*array_len_out = 0;", "\t*ptr_off_out = 0;",
         "\tswitch (cmd) {"]
    for n in carried:
        if not n.startswith("vkCmd") or not cx.args_exist(n):
            continue
        arr = _flat_form(cx, n)
        if arr is False:
            continue
        L.append("\tcase SBT_VK_CMD_%s: {" % n)
        L.append("\t\tconst sbt_vk_args_%s *s = args;" % n)
        if arr is not None:
            nm = "s->" + arr.m.name
            size = "1" if arr.k == "bytes" else "sizeof(*%s)" % nm
            L += ["\t\t*array_out = %s;" % nm,
                  "\t\t*array_len_out = %s ? (size_t)(%s) * %s : 0;" % (nm, arr.count, size),
                  "\t\t*ptr_off_out = offsetof(sbt_vk_args_%s, %s);" % (n, arr.m.name)]
        L += ["\t\treturn sizeof(*s);", "\t}"]
    L += ["\tdefault:", "\t\treturn 0;", "\t}", "}", ""]
    return L


def gen_dump_c(cx):
    reg = cx.reg
    em = Emit(cx)
    body = []
    protos = ["static void sbt_vk_p_chain(sbt_vk_pr *pr, const void *pnext);"]
    pn = set()
    for n in cx.structs:
        cls = _struct_class(cx, n)
        kinds = cx.struct_kinds.get(n, [])
        if cls == "rawunion":
            continue
        if cls == "selunion":
            protos.append("static void sbt_vk_p_%s(sbt_vk_pr *pr, const %s *s, int64_t sel);" % (n, n))
            b = ["switch (sel) {"]
            for k in kinds:
                if k.m.selection:
                    b += ["case %s:" % v for v in k.m.selection] + ["\t" + x for x in em.pr_member(k)] + ["\tbreak;"]
            b += ["default:", "\tbreak;", "}"]
            _fn(body, "static void sbt_vk_p_%s(sbt_vk_pr *pr, const %s *s, int64_t sel)" % (n, n), b, ("}",))
            continue
        protos.append("static inline SBT_VK_MAYBE_UNUSED void sbt_vk_p_%s(sbt_vk_pr *pr, const %s *s);" % (n, n))
        b = []
        for k in kinds:
            if k.k != "pnext":
                b += em.pr_member(k)
        if reg.structs[n].has_pnext and cls == "normal":
            pn.add(n)
            protos[-1] = "static inline SBT_VK_MAYBE_UNUSED void sbt_vk_p_%s(sbt_vk_pr *pr, const %s *s);" % (n, n)
            protos.append("static void sbt_vk_pb_%s(sbt_vk_pr *pr, const %s *s);" % (n, n))
            _fn(body, "static void sbt_vk_pb_%s(sbt_vk_pr *pr, const %s *s)" % (n, n), b or ["(void)pr;", "(void)s;"], ("}",))
            _fn(body, "static inline SBT_VK_MAYBE_UNUSED void sbt_vk_p_%s(sbt_vk_pr *pr, const %s *s)" % (n, n),
                ["sbt_vk_pb_%s(pr, s);" % n, "if (s->pNext)", "\tsbt_vk_p_chain(pr, s->pNext);"], ("}",))
        else:
            _fn(body, "static inline SBT_VK_MAYBE_UNUSED void sbt_vk_p_%s(sbt_vk_pr *pr, const %s *s)" % (n, n), b or ["(void)pr;", "(void)s;"], ("}",))
    b = ["size_t m0 = sbt_vk_pr_enter(pr, \"pNext\");",
         "for (const VkBaseInStructure *b = pnext; b; b = b->pNext) {", "\tswitch (b->sType) {"]
    for n in cx.chain_structs:
        fn = ("sbt_vk_pb_%s" if n in pn else "sbt_vk_p_%s") % n
        b += ["\tcase %s: {" % reg.structs[n].stype,
              "\t\tsize_t m1 = sbt_vk_pr_enter(pr, \"%s\");" % n,
              "\t\t%s(pr, (const %s *)(const void *)b);" % (fn, n),
              "\t\tsbt_vk_pr_pop(pr, m1);", "\t\tbreak;", "\t}"]
    b += ["\tdefault:", "\t\tsbt_vk_pr_i(pr, \"sType\", (int64_t)b->sType);", "\t\tbreak;", "\t}", "}",
          "sbt_vk_pr_pop(pr, m0);"]
    _fn(body, "static void sbt_vk_p_chain(sbt_vk_pr *pr, const void *pnext)", b, ("}",))
    carried = cx.carried_commands()
    for n in carried:
        b = []
        for k in cx.cmd_kinds[n]:
            b += em.pr_member(k)
        protos.append("static void sbt_vk_pc_%s(sbt_vk_pr *pr, const sbt_vk_args_%s *s);" % (n, n))
        _fn(body, "static void sbt_vk_pc_%s(sbt_vk_pr *pr, const sbt_vk_args_%s *s)" % (n, n),
            b or ["(void)pr;", "(void)s;"], ("}",))
    b = ["switch (cmd) {"]
    for n in carried:
        b += ["case SBT_VK_CMD_%s:" % n, "\tsbt_vk_pc_%s(pr, args);" % n, "\tbreak;"]
    b += ["default:", "\tbreak;", "}"]
    _fn(body, "void sbt_vk_print_args(sbt_vk_pr *pr, enum sbt_vk_cmd cmd, const void *args)", b, ("}",))
    enums = []
    for fb in sorted(em.flags_used):
        # single bits only, by value: 64-bit FlagBits are const variables, not constants
        ev = reg.enums[fb].values
        vals = [v for v in _enum_values(cx, fb) if ev[v].value and not ev[v].value & (ev[v].value - 1)]
        enums += ["#define SBT_VK_FL_%s %d" % (fb, len(vals)),
                  "static const sbt_vk_flag_bit sbt_vk_fl_%s[SBT_VK_FL_%s] = {" % (fb, fb)]
        enums += ["\t{0x%xull, \"%s\"}," % (ev[v].value, v) for v in vals] + ["};", ""]
    for en in sorted(em.enums_used):
        en = reg.resolve(en)
        fn = ["switch (v) {"]
        for v in _enum_values(cx, en):
            fn += ["case %s:" % v, "\treturn \"%s\";" % v]
        fn += ["default:", "\treturn NULL;", "}"]
        protos.insert(0, "static const char *sbt_vk_en_%s(int64_t v);" % en)
        _fn(enums, "static const char *sbt_vk_en_%s(int64_t v)" % en, fn, ("}",))
    L = [banner(cx), "/*",
         " * sbt_vk_dump.c - text of decoded Vulkan arguments for tsinfo --dump:",
         " * one key=value per scalar, nested structs and arrays by path.",
         " */"] + PLATFORM_DEFINES + [
         "#include <stdint.h>", "#include <string.h>", "",
         "#include \"serializer/generated/sbt_vk_codec_internal.h\"", "",
         "void sbt_vk_print_args(sbt_vk_pr *pr, enum sbt_vk_cmd cmd, const void *args);", ""]
    return "\n".join(L + sorted(set(protos), key=protos.index) + [""] + enums + body)


def gen_selftest_c(cx):
    reg = cx.reg
    em = Emit(cx)
    smalls = _smalls(cx)
    protos, body = [], []
    pn = set()
    for n in cx.structs:
        cls = _struct_class(cx, n)
        kinds = cx.struct_kinds.get(n, [])
        if cls in ("plain", "rawunion"):
            protos.append("static void sbt_vk_f_%s(sbt_vk_t *f, void *vs, int depth);" % n)
            protos.append("static int sbt_vk_c_%s(sbt_vk_c *c, const void *va, const void *vb, int in);" % n)
            _fn(body, "static void sbt_vk_f_%s(sbt_vk_t *f, void *vs, int depth)" % n,
                ["(void)depth;", "sbt_vk_t_bytes(f, vs, sizeof(%s));" % n], ("}",))
            _fn(body, "static int sbt_vk_c_%s(sbt_vk_c *c, const void *va, const void *vb, int in)" % n,
                ["(void)in;", "if (memcmp(va, vb, sizeof(%s)) != 0)" % n,
                 "\treturn sbt_vk_t_fail(c, \"%s\");" % n], ("\treturn 0;", "}"))
            continue
        if cls == "selunion":
            protos.append("static void sbt_vk_f_%s(sbt_vk_t *f, void *vs, int64_t sel, int depth);" % n)
            protos.append("static int sbt_vk_c_%s(sbt_vk_c *c, const void *va, const void *vb, int64_t sel, int in);" % n)
            fb = ["%s *s = vs;" % n, "(void)depth;", "switch (sel) {"]
            cb = ["const %s *a = va, *b = vb;" % n, "(void)in;", "switch (sel) {"]
            for k in kinds:
                if k.m.selection:
                    cases = ["case %s:" % v for v in k.m.selection]
                    fb += cases + ["\t" + x for x in em.fill_member(k, {}, {}, n)] + ["\tbreak;"]
                    cb += cases + ["\t" + x for x in em.cmp_member(k, n)] + ["\tbreak;"]
            fb += ["default:", "\tbreak;", "}"]
            cb += ["default:", "\tbreak;", "}"]
            _fn(body, "static void sbt_vk_f_%s(sbt_vk_t *f, void *vs, int64_t sel, int depth)" % n, fb, ("}",))
            _fn(body, "static int sbt_vk_c_%s(sbt_vk_c *c, const void *va, const void *vb, int64_t sel, int in)" % n,
                cb, ("\treturn 0;", "}"))
            continue
        protos.append("static void sbt_vk_f_%s(sbt_vk_t *f, void *vs, int depth);" % n)
        protos.append("static int sbt_vk_c_%s(sbt_vk_c *c, const void *va, const void *vb, int in);" % n)
        sm = smalls.get(n, {})
        sel = _selectors(cx, n)
        fb = ["%s *s = vs;" % n, "(void)depth;", "(void)f;"]
        for k in kinds:
            if k.k not in PTR_KINDS:
                fb += em.fill_member(k, sm, sel, n)
        for k in kinds:
            if k.k in PTR_KINDS:
                fb += em.fill_member(k, sm, sel, n)
        cb = ["const %s *a = va, *b = vb;" % n, "(void)in;", "(void)c;"]
        for k in kinds:
            cb += em.cmp_member(k, n)
        _fn(body, "static void sbt_vk_f_%s(sbt_vk_t *f, void *vs, int depth)" % n, fb, ("}",))
        _fn(body, "static int sbt_vk_c_%s(sbt_vk_c *c, const void *va, const void *vb, int in)" % n,
            cb, ("\treturn 0;", "}"))
    # chain compare
    b = ["const VkBaseInStructure *x = va, *y = vb;", "for (; x && y; x = x->pNext, y = y->pNext) {",
         "\tif (x->sType != y->sType)", "\t\treturn sbt_vk_t_fail(c, \"pNext.sType\");",
         "\tswitch (x->sType) {"]
    for n in cx.chain_structs:
        b += ["\tcase %s:" % reg.structs[n].stype,
              "\t\tif (sbt_vk_c_%s(c, x, y, in))" % n, "\t\t\treturn 1;", "\t\tbreak;"]
    b += ["\tdefault:", "\t\treturn sbt_vk_t_fail(c, \"pNext (unknown sType)\");", "\t}", "}",
          "if (x || y)", "\treturn sbt_vk_t_fail(c, \"pNext (chain length)\");"]
    protos.insert(0, "static int sbt_vk_c_chain(sbt_vk_c *c, const void *va, const void *vb, int in);")
    _fn(body, "static int sbt_vk_c_chain(sbt_vk_c *c, const void *va, const void *vb, int in)", b, ("\treturn 0;", "}"))
    # struct thunks and table
    tab = []
    idx = {}
    for n in cx.structs:
        cls = _struct_class(cx, n)
        if cls == "selunion":
            continue
        idx[n] = len(tab)
        protos.append("static sbt_vk_status sbt_vk_te_%s(sbt_vk_e *e, const void *s);" % n)
        protos.append("static sbt_vk_status sbt_vk_td_%s(sbt_vk_d *d, void *s, int in);" % n)
        _fn(body, "static sbt_vk_status sbt_vk_te_%s(sbt_vk_e *e, const void *s)" % n, [],
            ("\treturn sbt_vk_e_%s(e, s);" % n, "}"))
        _fn(body, "static sbt_vk_status sbt_vk_td_%s(sbt_vk_d *d, void *s, int in)" % n, [],
            ("\treturn sbt_vk_d_%s(d, s, in);" % n, "}"))
        s = reg.structs[n]
        tab.append("\t{\"%s\", sizeof(%s), %d, %d, sbt_vk_f_%s, sbt_vk_te_%s, sbt_vk_td_%s, sbt_vk_c_%s},"
                   % (n, n, 0 if s.returnedonly else 1, 1 if (s.has_pnext and cls == "normal") else 0, n, n, n, n))
    pairs = []
    for n in cx.structs:
        s = reg.structs[n]
        if n not in idx or not s.has_pnext:
            continue
        for x in s.extended_by:
            if x in idx and x in cx.reach_set:
                pairs.append("\t{%d, %d}, /* %s <- %s */" % (idx[n], idx[x], n, x))
    # commands
    cmdtab = []
    for n in cx.carried_commands():
        canon = _cmd_canon(cx, n)
        if canon != n and not cx.cmd_reason.get(canon) and cx.args_exist(canon):
            cmdtab.append("\t{SBT_VK_CMD_%s, sbt_vk_fa_%s, sbt_vk_ca_%s}," % (n, canon, canon))
            continue
        kinds = cx.cmd_kinds[n]
        sm = smalls.get(n, {})
        fb = ["sbt_vk_args_%s *s = vs;" % n, "const int depth = 0;", "(void)depth;", "(void)f;"]
        for k in kinds:
            if k.k not in PTR_KINDS:
                fb += em.fill_member(k, sm, {}, n)
        for k in kinds:
            if k.k in PTR_KINDS:
                fb += em.fill_member(k, sm, {}, n)
        cb = ["const sbt_vk_args_%s *a = va, *b = vb;" % n, "(void)c;"]
        for k in kinds:
            cb += em.cmp_member(k, n)
        protos.append("static void sbt_vk_fa_%s(sbt_vk_t *f, void *vs);" % n)
        protos.append("static int sbt_vk_ca_%s(sbt_vk_c *c, const void *va, const void *vb);" % n)
        _fn(body, "static void sbt_vk_fa_%s(sbt_vk_t *f, void *vs)" % n, fb, ("}",))
        _fn(body, "static int sbt_vk_ca_%s(sbt_vk_c *c, const void *va, const void *vb)" % n, cb, ("\treturn 0;", "}"))
        cmdtab.append("\t{SBT_VK_CMD_%s, sbt_vk_fa_%s, sbt_vk_ca_%s}," % (n, n, n))
    excluded_structs = sum(1 for n, w in cx.struct_reason.items() if w)
    L = [banner(cx), "/*",
         " * sbt_vk_selftest.c - the codec's round trip over every struct reachable",
         " * from a carried command (alone, and with each struct that extends it in",
         " * its pNext chain) and over every carried command's arguments: fill with",
         " * seeded pseudo-random data consistent with the length members, encode,",
         " * decode through a handle map, compare member by member.",
         " */"] + PLATFORM_DEFINES + [
         "#include <stdint.h>", "#include <stdlib.h>", "#include <string.h>", "",
         "#include \"serializer/generated/sbt_vk_codec_internal.h\"",
         "#include \"serializer/sbt_vk_selftest_support.h\"", "",
         "#define SBT_VK_T_EXCLUDED_CMDS %d" % sum(1 for w in cx.cmd_reason.values() if w),
         "#define SBT_VK_T_EXCLUDED_STRUCTS %d" % excluded_structs, ""]
    L += sorted(set(protos), key=protos.index) + [""] + body
    L += ["static const sbt_vk_t_struct sbt_vk_t_structs[%d] = {" % len(tab)] + tab + ["};", ""]
    L += ["static const sbt_vk_t_pair sbt_vk_t_pairs[%d] = {" % max(1, len(pairs))] + (pairs or ["\t{0, 0},"]) + ["};", ""]
    L += ["static const sbt_vk_t_cmd sbt_vk_t_cmds[%d] = {" % len(cmdtab)] + cmdtab + ["};", ""]
    L += ["sbt_vk_status sbt_vk_selftest_run(uint64_t seed, sbt_vk_selftest_report *out)", "{",
          "\treturn sbt_vk_t_run(seed, out, sbt_vk_t_structs, %d, sbt_vk_t_pairs, %d, sbt_vk_t_cmds, %d,"
          % (len(tab), len(pairs), len(cmdtab)),
          "\t                    SBT_VK_T_EXCLUDED_CMDS, SBT_VK_T_EXCLUDED_STRUCTS);", "}", ""]
    return "\n".join(L)


def gen_ignored_h(cx):
    """The ignored-member rules as a table (tests/programs/vk_ignored.c runs one
    case per entry) and as predicates for hand-written code that reads such
    members from the application's structs."""
    def q(t):
        return '"%s"' % t.replace("\\", "\\\\").replace('"', '\\"')
    L = [banner(cx), "/*",
         " * sbt_vk_ignored.h - members the Vulkan specification says are ignored",
         " * (scripts/vkgen/overrides.py IGNORED_MEMBERS, then the generic rule for",
         " * input arrays of count 0).  The encoder writes such a member as absent.",
         " */", "#ifndef TRACESMITH_SBT_VK_IGNORED_H", "#define TRACESMITH_SBT_VK_IGNORED_H", "",
         "#include <vulkan/vulkan.h>", "",
         "/* Rasterization is disabled: statically, and not made dynamic. */",
         "static inline int sbt_vk_ignored_discard(const VkPipelineRasterizationStateCreateInfo *rs,",
         "                                         const VkPipelineDynamicStateCreateInfo *dyn)",
         "{",
         "\tif (!rs || !rs->rasterizerDiscardEnable)",
         "\t\treturn 0;",
         "\tfor (uint32_t i = 0; dyn && dyn->pDynamicStates && i < dyn->dynamicStateCount; i++)",
         "\t\tif (dyn->pDynamicStates[i] == VK_DYNAMIC_STATE_RASTERIZER_DISCARD_ENABLE)",
         "\t\t\treturn 0;",
         "\treturn 1;",
         "}", "",
         "/* One of the n states of want is dynamic in dyn. */",
         "static inline int sbt_vk_ignored_dynamic(const VkPipelineDynamicStateCreateInfo *dyn, uint32_t n,",
         "                                         const VkDynamicState *want)",
         "{",
         "\tfor (uint32_t i = 0; dyn && dyn->pDynamicStates && i < dyn->dynamicStateCount; i++)",
         "\t\tfor (uint32_t j = 0; j < n; j++)",
         "\t\t\tif (dyn->pDynamicStates[i] == want[j])",
         "\t\t\t\treturn 1;",
         "\treturn 0;",
         "}", "",
         "/* A complete graphics pipeline (no library flag, created from no",
         " * libraries) for dynamic rendering whose VkPipelineRenderingCreateInfo (or",
         " * its absence) has no depth or stencil format (color 0) or no color",
         " * attachment (color 1). */",
         "static inline int sbt_vk_ignored_no_rendering_attachment(VkRenderPass rp, VkPipelineCreateFlags flags,",
         "                                                         const void *pnext, int color)",
         "{",
         "\tconst VkPipelineRenderingCreateInfo *ri = NULL;",
         "\tif (rp != VK_NULL_HANDLE || (flags & VK_PIPELINE_CREATE_LIBRARY_BIT_KHR))",
         "\t\treturn 0;",
         "\tfor (const VkBaseInStructure *b = pnext; b; b = b->pNext) {",
         "\t\tif (b->sType == VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR ||",
         "\t\t    b->sType == VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT)",
         "\t\t\treturn 0;",
         "\t\tif (b->sType == VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO)",
         "\t\t\tri = (const VkPipelineRenderingCreateInfo *)(const void *)b;",
         "\t}",
         "\tif (color)",
         "\t\treturn !ri || ri->colorAttachmentCount == 0;",
         "\treturn !ri || (ri->depthAttachmentFormat == VK_FORMAT_UNDEFINED &&",
         "\t               ri->stencilAttachmentFormat == VK_FORMAT_UNDEFINED);",
         "}", "",
         "/* Every stage of want is among the pipeline's stages. */",
         "static inline int sbt_vk_ignored_stages(uint32_t n, const VkPipelineShaderStageCreateInfo *st,",
         "                                        VkShaderStageFlags want)",
         "{",
         "\tVkShaderStageFlags have = 0;",
         "\tfor (uint32_t i = 0; st && i < n; i++)",
         "\t\thave |= st[i].stage;",
         "\treturn (have & want) == want;",
         "}", "",
         "typedef struct sbt_vk_ignored_rule {",
         "\tconst char *owner;  /* struct or command; \"*\" for the generic rule */",
         "\tconst char *member;",
         "\tconst char *when;   /* the condition, in words */",
         "\tconst char *spec;   /* the specification's wording */",
         "} sbt_vk_ignored_rule;", "",
         "#define SBT_VK_IGNORED_RULES %d" % (len(ov.IGNORED_MEMBERS) + 1), "",
         "static const sbt_vk_ignored_rule sbt_vk_ignored_rules[SBT_VK_IGNORED_RULES] = {"]
    for r in ov.IGNORED_MEMBERS:
        L.append("\t{%s, %s, %s," % (q(r["owner"]), q(r["member"]), q(ignored_text(r["when"]))))
        L.append("\t %s}," % q(r["spec"]))
    L += ["\t{\"*\", \"an input array\", \"its count is 0\",",
          "\t %s}," % q(ov.IGNORED_ZERO_COUNT_SPEC), "};", ""]
    done = set()
    for r in ov.IGNORED_MEMBERS:
        if r["when"][0] in PARENT_RULES:
            # parent: the struct s is reached from (NULL: another one)
            L += ["static inline int sbt_vk_ignored_%s_%s(const %s *s," % (r["owner"], r["member"], r["owner"]),
                  "%sconst %s *parent)"
                  % (" " * len("static inline int sbt_vk_ignored_%s_%s(" % (r["owner"], r["member"])),
                     r["when"][1]),
                  "{", "\t(void)s;", "\treturn parent && %s;" % ignored_parent(r["when"], "parent"),
                  "}", ""]
            continue
        c = ignored_cond(r["when"])
        if c is None or (r["owner"], r["member"]) in done:
            continue
        # one predicate per member: its rules' conditions, or-ed
        done.add((r["owner"], r["member"]))
        cs = [ignored_cond(x["when"]) for x in ov.IGNORED_MEMBERS
              if (x["owner"], x["member"]) == (r["owner"], r["member"])]
        c = " || ".join("(%s)" % x for x in cs) if len(cs) > 1 else c
        L += ["static inline int sbt_vk_ignored_%s_%s(const %s *s)" % (r["owner"], r["member"], r["owner"]),
              "{", "\treturn %s;" % c, "}", ""]
    L += ["#endif", ""]
    return "\n".join(L)


def generate(reg):
    """Module entry point for gen.py: {path relative to the repo: text}."""
    cx = Codec(reg)
    return {
        "serializer/generated/sbt_vk_ignored.h": gen_ignored_h(cx),
        "serializer/generated/sbt_vk_codec.h": gen_header(cx),
        "serializer/generated/sbt_vk_codec_internal.h": gen_internal_header(cx),
        "serializer/generated/sbt_vk_codec.c": gen_codec_c(cx),
        "serializer/generated/sbt_vk_dump.c": gen_dump_c(cx),
        "serializer/generated/sbt_vk_selftest.c": gen_selftest_c(cx),
    }


def summary(reg):
    cx = Codec(reg)
    return cx


if __name__ == "__main__":
    sys.exit("codec.py is a module of scripts/vkgen/gen.py: run python3 scripts/vkgen/gen.py "
             "(make regen)")
