"""refs - generates the handle walk of the Vulkan codec: for the commands
that record into or submit command buffers, every input handle their
parameters name, nested structs, arrays and pNext chains included.

A module of gen.py (generate(reg) -> {path: text}), not a program of its
own.  Output: serializer/generated/sbt_vk_refs.c (sbt_vk_refs,
sbt_vk_cmd_has_refs; interface in serializer/sbt_vk.h).  The layer uses it
to learn which buffers, images, views, descriptor sets and secondary
command buffers a command buffer reaches, so that a submission publishes
the host writes of that memory only (layers/vulkan/vkl_reach.c).

The walk goes over the same member kinds as the codec's five walks
(codec.Codec), so it sees every handle the encoder records.  A value that
may name handles the walk cannot follow (a union selected at run time that
holds handles) is reported as VK_OBJECT_TYPE_UNKNOWN, and the caller must
then assume the command reaches everything.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import codec as cg  # noqa: E402
import overrides as ov  # noqa: E402

# Commands walked: every vkCmd* and overrides.REFS_EXTRA.  Handle types
# through which a command cannot reach host-mapped memory are not walked:
# overrides.REFS_NO_MEMORY.
REFS_EXTRA = ov.REFS_EXTRA
NO_MEMORY = ov.REFS_NO_MEMORY
# Members named for the device to read only: reported with access 1
# (SBT_VK_REF_READS); members written where the command's regions say:
# access 2 (SBT_VK_REF_REGIONS); the others 0 (SBT_VK_REF_WRITES).
READS_ONLY = ov.REFS_READS_ONLY
WRITES_REGIONS = ov.REFS_WRITES_REGIONS

# The codec's member kinds (codec.Kind.k) whose element the walk follows:
# a handle, or a struct it descends into.
WALKED_KINDS = ("val", "fixarr", "single", "array", "ptrarr")


class Refs:
    def __init__(self, cx):
        self.cx = cx
        self.reg = cx.reg
        self.owner = None  # the struct or command vis_kind walks (vis_el reads it)
        self.access = 0  # vis_el's handles' access: 0 written, 1 READS_ONLY, 2 WRITES_REGIONS
        self.has = {n: False for n in cx.structs}
        self.unknown = {n: False for n in cx.structs}
        changed = True
        while changed:
            changed = False
            for n in cx.structs:
                h, u = self._struct_refs(n)
                if h != self.has[n] or u != self.unknown[n]:
                    self.has[n], self.unknown[n] = h, u
                    changed = True
        self.chain = [n for n in cx.chain_structs if self.has[n]]
        self.commands = [n for n in cx.carried_commands()
                         if n.startswith("vkCmd") or n in REFS_EXTRA]
        self.cmd_has = {n: any(self._kind_refs(k) for k in self._cmd_kinds(n)) for n in self.commands}
        self._check_access(READS_ONLY, "REFS_READS_ONLY")
        self._check_access(WRITES_REGIONS, "REFS_WRITES_REGIONS")

    def has_regions(self, n):
        """Whether command n names a buffer with access 2 (WRITES_REGIONS):
        as a parameter, or as a member of a structure a parameter points to."""
        if n in WRITES_REGIONS:
            return True
        return any(k.el is not None and k.el.k == "s" and
                   self.reg.resolve(k.el.sname) in WRITES_REGIONS for k in self._cmd_kinds(n))

    def _check_access(self, table, name):
        """Every entry of table names a walked buffer or image member."""
        for owner, members in table.items():
            if owner in self.cx.structs:
                kinds = self.cx.struct_kinds.get(owner, [])
            elif owner in self.commands:
                kinds = self._cmd_kinds(owner)
            else:
                raise AssertionError("%s: %s is not a walked command or struct" % (name, owner))
            for m in members:
                k = [k for k in kinds if k.m is not None and k.m.name == m]
                if not k or k[0].el is None or k[0].el.k != "h" or \
                        self.reg.resolve(k[0].el.ctype) not in ("VkBuffer", "VkImage"):
                    raise AssertionError("%s: %s.%s is not a buffer or image" % (name, owner, m))

    def _cmd_kinds(self, n):
        kinds = self.cx.cmd_kinds[n]
        # not the first parameter: the dispatchable handle the call is made on
        return [k for k in kinds[1:] if k.k != "ret" and not k.out and k.inflag != "0"]

    def _el_refs(self, el):
        if el is None:
            return False
        if el.k == "h":
            return self.reg.resolve(el.ctype) not in NO_MEMORY
        if el.k == "s":
            return self.has.get(self.reg.resolve(el.sname), False)
        return False

    def _kind_refs(self, k):
        if k.inflag == "0":
            return False
        if k.k in WALKED_KINDS:
            return self._el_refs(k.el)
        if k.k == "pnext":
            return self._chain_refs(k.owner)
        if k.k == "usel":
            return self._union_refs(k.el.sname)
        return False

    def _chain_refs(self, owner):
        s = self.reg.structs[owner]
        return any(self.has.get(self.reg.resolve(e), False) for e in s.extended_by)

    def _union_refs(self, uname):
        u = self.reg.struct(uname)
        for m in u.members:
            t = self.reg.resolve(m.type)
            if (self.reg.category(t) == "handle" and t not in NO_MEMORY) or self.has.get(t, False):
                return True
        return False

    def _struct_refs(self, n):
        if cg._struct_class(self.cx, n) != "normal":
            return False, False
        h = u = False
        for k in self.cx.struct_kinds.get(n, []):
            k.owner = n
            if self._kind_refs(k):
                h = True
                if k.k == "usel":
                    u = True
        return h, u

    def needed(self, commands=None):
        """Structs with handles reachable from the walked commands (or those
        given), vk.xml order."""
        reg = self.reg
        seen = set()
        todo = []
        chain = [False]

        def from_kinds(kinds):
            for k in kinds:
                if not self._kind_refs(k):
                    continue
                if k.k == "pnext":
                    chain[0] = True
                elif k.k in WALKED_KINDS and k.el.k == "s":
                    t = reg.resolve(k.el.sname)
                    if t not in seen:
                        seen.add(t)
                        todo.append(t)

        for n in (self.commands if commands is None else commands):
            if self.cmd_has[n]:
                from_kinds(self._cmd_kinds(n))
        while True:
            while todo:
                t = todo.pop()
                kinds = self.cx.struct_kinds.get(t, [])
                for k in kinds:
                    k.owner = t
                from_kinds(kinds)
            if chain[0]:
                for t in self.chain:
                    if t not in seen:
                        seen.add(t)
                        todo.append(t)
            if not todo:
                break
        if commands is None:
            self.chain_needed = chain[0]
        return [n for n in self.cx.structs if n in seen]

    def ignored(self, k, owner):
        """C condition (over "s->") under which the walk skips member k, or
        None.  A member ignored inside a command (overrides.IGNORED_MEMBERS
        "in_command") is skipped always: the generator checks that its struct
        reaches the walk only through that command."""
        if k.ign_par:
            # a parent rule: the walker of owner takes its parent (NULL
            # when reached from elsewhere)
            return "parent && %s" % cg.ignored_parent(k.ign_par, "parent")
        if not k.ign_ctx:
            return k.ign_rule  # a count of 0 walks nothing anyway
        cmd = cg.IGNORED_CONTEXTS[k.ign_ctx - 1]
        others = [n for n in self.commands if n != cmd and self.reg.commands[n].alias != cmd]
        if owner in self.needed(others):
            raise AssertionError("%s.%s is ignored only inside %s, but other walked commands reach it"
                                 % (owner, k.m.name, cmd))
        return "1"

    # ---- emission -------------------------------------------------------------

    def vis_el(self, el, lv):
        if el.k == "h":
            if not self._el_refs(el):
                return []
            return ["if ((%s) != VK_NULL_HANDLE)" % lv,
                    "\tfn(ctx, %s, (uint64_t)(uintptr_t)(%s), %d);" % (el.objtype, lv, self.access)]
        if el.k == "s" and self._el_refs(el):
            sn = self.reg.resolve(el.sname)
            if sn in cg.IGNORED_PARENT_OF:
                par = "s" if cg.IGNORED_PARENT_OF[sn] == self.owner else "NULL"
                return ["sbt_vk_r_%s(&(%s), %s, fn, ctx);" % (sn, lv, par)]
            return ["sbt_vk_r_%s(&(%s), fn, ctx);" % (sn, lv)]
        return []

    def vis_kind(self, k, em, owner=None):
        if not self._kind_refs(k):
            return []
        self.owner = owner  # vis_el passes it to a child's walker as its parent
        name = k.m.name if k.m is not None else None
        self.access = 1 if name in READS_ONLY.get(owner, ()) else \
            2 if name in WRITES_REGIONS.get(owner, ()) else 0
        ign = self.ignored(k, owner) if k.m is not None else None
        if ign == "1":
            return ["/* %s: ignored (overrides.IGNORED_MEMBERS) */" % k.m.name]
        if ign:
            body = self._vis_kind(k, em)
            return ["if (!(%s)) { /* else ignored (overrides.IGNORED_MEMBERS) */" % ign] + \
                ["\t" + x for x in body] + ["}"]
        return self._vis_kind(k, em)

    def _vis_kind(self, k, em):
        nm = "s->" + k.m.name if k.m is not None else None
        K = k.k
        if K == "pnext":
            return ["sbt_vk_r_chain(s->pNext, fn, ctx);"]
        if K == "usel":
            return ["(void)s;", "fn(ctx, VK_OBJECT_TYPE_UNKNOWN, 0, 0); /* %s: a union holding handles */" % k.m.name]
        if K == "val":
            return self.vis_el(k.el, nm)
        if K == "fixarr":
            i = em.t("i")
            return ["for (uint32_t %s = 0; %s < (uint32_t)(%s); %s++) {" % (i, i, k.fixn, i)] + \
                ["\t" + x for x in self.vis_el(k.el, "%s[%s]" % (nm, i))] + ["}"]
        if K == "single":
            return ["if (%s) {" % nm] + ["\t" + x for x in self.vis_el(k.el, "%s[0]" % nm)] + ["}"]
        if K == "array":
            i = em.t("i")
            return ["if (%s) {" % nm,
                    "\tconst uint64_t %s_n = %s;" % (i, k.count),
                    "\tfor (uint64_t %s = 0; %s < %s_n; %s++) {" % (i, i, i, i)] + \
                ["\t\t" + x for x in self.vis_el(k.el, "%s[%s]" % (nm, i))] + ["\t}", "}"]
        if K == "ptrarr":
            i = em.t("i")
            return ["if (%s) {" % nm,
                    "\tconst uint64_t %s_n = %s;" % (i, k.count),
                    "\tfor (uint64_t %s = 0; %s < %s_n; %s++) {" % (i, i, i, i),
                    "\t\tif (!%s[%s])" % (nm, i), "\t\t\tcontinue;"] + \
                ["\t\t" + x for x in self.vis_el(k.el, "%s[%s][0]" % (nm, i))] + ["\t}", "}"]
        raise AssertionError(K)


def gen_refs_c(cx, rf):
    reg = cx.reg
    em = cg.Emit(cx)
    walked = rf.needed()
    L = [cg.banner(cx), "/*",
         " * sbt_vk_refs.c - every input handle the parameters of a command that",
         " * records into or submits command buffers name (scripts/vkgen/refs.py).",
         " * Interface: serializer/sbt_vk.h.",
         " */"] + cg.PLATFORM_DEFINES + [
         "#include <stdint.h>", "",
         "#include \"serializer/sbt_vk.h\"", ""]
    L.append("static void sbt_vk_r_chain(const void *pnext, sbt_vk_ref_fn fn, void *ctx);")
    def head(n):
        par = cg.IGNORED_PARENT_OF.get(n)
        if par:  # a parent rule's owner: its walker takes the parent
            return "static void sbt_vk_r_%s(const %s *s, const %s *parent, sbt_vk_ref_fn fn, void *ctx)" % (n, n, par)
        return "static void sbt_vk_r_%s(const %s *s, sbt_vk_ref_fn fn, void *ctx)" % (n, n)
    for n in walked:
        L.append(head(n) + ";")
    L.append("")
    body = ["for (const VkBaseInStructure *b = pnext; b; b = b->pNext) {", "\tswitch (b->sType) {"]
    for n in rf.chain:
        body += ["\tcase %s:" % reg.structs[n].stype,
                 "\t\tsbt_vk_r_%s((const %s *)(const void *)b, %sfn, ctx);"
                 % (n, n, "NULL, " if n in cg.IGNORED_PARENT_OF else ""),
                 "\t\tbreak;"]
    body += ["\tdefault:", "\t\tbreak;", "\t}", "}"]
    if not rf.chain:
        body = ["(void)pnext;", "(void)fn;", "(void)ctx;"]
    L += ["static void sbt_vk_r_chain(const void *pnext, sbt_vk_ref_fn fn, void *ctx)", "{"] + \
        ["\t" + x for x in body] + ["}", ""]
    for n in walked:
        body = []
        for k in cx.struct_kinds.get(n, []):
            k.owner = n
            body += rf.vis_kind(k, em, n)
        L += [head(n), "{"] + ["\t" + x for x in body] + ["}", ""]
    with_refs = [n for n in rf.commands if rf.cmd_has[n]]
    done = {}
    for n in with_refs:
        canon = cg._cmd_canon(cx, n)
        if canon != n and canon in done:
            done[n] = done[canon]
            continue
        done[n] = n
        macro = cx.cmd_platform_macro(n)
        if macro:
            L.append("#ifdef %s" % macro)
        body = []
        for k in rf._cmd_kinds(n):
            k.owner = n
            body += rf.vis_kind(k, em, n)
        L += ["static void sbt_vk_rc_%s(const sbt_vk_args_%s *s, sbt_vk_ref_fn fn, void *ctx)" % (n, n), "{"] + \
            ["\t" + x for x in body] + ["}"]
        if macro:
            L.append("#endif")
        L.append("")
    L += ["int sbt_vk_cmd_has_refs(enum sbt_vk_cmd cmd)", "{", "\tswitch (cmd) {"]
    L += ["\tcase SBT_VK_CMD_%s:" % n for n in with_refs]
    L += ["\t\treturn 1;", "\tdefault:", "\t\treturn 0;", "\t}", "}", ""]
    L += ["int sbt_vk_refs(enum sbt_vk_cmd cmd, const void *args, sbt_vk_ref_fn fn, void *ctx)", "{",
          "\tif (!args || !fn)", "\t\treturn 0;", "\tswitch (cmd) {"]
    for n in with_refs:
        macro = cx.cmd_platform_macro(n)
        if macro:
            L.append("#ifdef %s" % macro)
        L += ["\tcase SBT_VK_CMD_%s:" % n, "\t\tsbt_vk_rc_%s(args, fn, ctx);" % done[n],
              "\t\treturn %d;" % (2 if rf.has_regions(n) else 1)]
        if macro:
            L.append("#endif")
    L += ["\tdefault:", "\t\treturn 0;", "\t}", "}", ""]
    return "\n".join(L)


def build(reg):
    cx = cg.Codec(reg)
    return cx, Refs(cx)


def generate(reg):
    """Module entry point for gen.py: {path relative to the repo: text}."""
    cx, rf = build(reg)
    return {"serializer/generated/sbt_vk_refs.c": gen_refs_c(cx, rf)}


if __name__ == "__main__":
    sys.exit("refs.py is a module of scripts/vkgen/gen.py: run python3 scripts/vkgen/gen.py "
             "(make regen)")
