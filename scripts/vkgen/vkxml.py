"""vkxml - the Vulkan registry (vk.xml) as a Python model, for every vkgen module.

Python 3 standard library only.  Shared by the codec (codec.py), layer
(layer.py) and replay (replay.py) generators; nothing here decides what a
generator emits, it only says what the registry holds.

    reg = vkxml.load()                      # /usr/share/vulkan/registry/vk.xml
    reg = vkxml.load(path, api="vulkan")    # elements for another API are dropped

The model (all plain objects, all dicts keyed by Vulkan name, insertion order
= order in vk.xml, so generated output is deterministic):

  reg.version          "1.3.239" (from VK_HEADER_VERSION_COMPLETE + VK_HEADER_VERSION)
  reg.platforms        {name: protect macro}, e.g. "xcb" -> "VK_USE_PLATFORM_XCB_KHR"
  reg.types            {name: Type} for every <type> with a name: category is
                       "basetype", "handle", "enum", "bitmask", "struct", "union",
                       "funcpointer", "define", "include" or None (externals
                       such as uint32_t, Display, xcb_window_t)
  reg.structs          {name: Struct} structs and unions (Struct.is_union)
  reg.handles          {name: Handle}
  reg.enums            {name: Enum} enumerated types with their values
                       (Enum.values: {name: EnumValue}; EnumValue.alias set
                       for aliases, .value the int when known)
  reg.bitmasks         {name: Bitmask} VkFooFlags -> bits enum, 32/64-bit
  reg.commands         {name: Command}; aliases are Command objects too, with
                       .alias naming the command they copy (params resolved)
  reg.features         [Feature] core versions, each with .requires
  reg.extensions       {name: Extension}
  reg.aliases          {alias type name: target type name}

Struct
  .name .is_union .returnedonly (bool) .structextends [base names]
  .alias (name or None) .members [Member] .stype (VK_STRUCTURE_TYPE_... or None)
  .has_pnext (bool) .extended_by [names of structs listing it in structextends]
  .allowduplicate (bool)

Member (also used for command parameters)
  .name       C identifier
  .type       the base type name ("uint32_t", "VkBuffer", "void", "char")
  .cdecl      the declaration as C text ("const char* const* ppEnabledLayerNames")
  .ctype      the declaration without the name and array suffix ("const char* const*")
  .ptrs       number of '*' (0, 1, 2)
  .const_levels list of bool, one per indirection from the outside in:
              const_levels[0] is True when *p is const, [1] when **p is
              ("const char* const* p" -> [True, True]; "void** p" -> [False, False])
  .is_input   True unless the member is a pointer to non-const (an output)
  .array      [dimension text] for fixed arrays ("4", "VK_UUID_SIZE"), else []
  .bitfield   width for bitfields ("24"), else None
  .len        [len items] from len= (e.g. ["enabledLayerCount", "null-terminated"]),
              [] when absent
  .altlen     C expression from altlen= or None
  .optional   [bool per level] from optional=
  .selector   member naming the union selector (on the union member), or None
  .selection  [enumerant names] (on union members), or []
  .values     sType value for the sType member, or None
  .noautovalidity, .externsync (raw text or None), .objecttype (member naming
              a VkObjectType for uint64_t handles, or None)
  .stride     member naming the array's byte stride (stride=, e.g.
              vkCmdDrawMultiEXT's pVertexInfo), or None: elements packed

Command
  .name .ret (C return type) .params [Member] .alias (or None)
  .successcodes [..] .errorcodes [..] .queues .cmdbufferlevel .renderpass
  .is_cmd_buffer (first param is VkCommandBuffer)
  .dispatch ("instance", "physical_device", "device", "queue", "command_buffer"
             by the first parameter, or "global" for vkCreateInstance et al.)
  .required_by [feature or extension names that require it]

Handle
  .name .parent .objtype (VK_OBJECT_TYPE_...) .dispatchable .alias

Extension
  .name .number .ext_type ("instance"/"device") .supported ["vulkan", ...]
  .platform (or None) .provisional .promotedto .obsoletedby .deprecatedby
  .depends (raw requires/depends text) .commands [names] .types [names]
  .enums [EnumValue added by it]

Feature
  .name ("VK_VERSION_1_0") .number ("1.0") .commands .types

Helpers
  reg.is_handle(name), reg.is_struct(name), reg.resolve(name) (follows
  aliases), reg.struct_size_info(name) -> (size, align, has_padding) for
  x86-64, reg.command_platform(name)/reg.type_platform(name) -> the platform
  of the extension that requires it (None for core/portable),
  reg.command_extensions(name), reg.available(name) (in the C headers for
  this api: required by a supported feature or extension).
"""

import os
import re
import sys
import xml.etree.ElementTree as ET

DEFAULT_PATH = "/usr/share/vulkan/registry/vk.xml"

# Sizes and alignments on x86-64 (LP64) of the non-Vulkan types vk.xml uses.
SCALAR_LAYOUT = {
    "char": (1, 1), "int8_t": (1, 1), "uint8_t": (1, 1),
    "int16_t": (2, 2), "uint16_t": (2, 2),
    "int32_t": (4, 4), "uint32_t": (4, 4), "int": (4, 4), "float": (4, 4),
    "int64_t": (8, 8), "uint64_t": (8, 8), "double": (8, 8),
    "size_t": (8, 8),
}


def _api_ok(elem, api):
    a = elem.get("api")
    return a is None or api in a.split(",")


def _split(s):
    return [x for x in s.split(",") if x] if s else []


class EnumValue:
    def __init__(self, name, value=None, alias=None, enum_type=None, ext=None, bitpos=None):
        self.name = name
        self.value = value
        self.alias = alias
        self.enum_type = enum_type
        self.ext = ext
        self.bitpos = bitpos

    def __repr__(self):
        return "EnumValue(%s)" % self.name


class Enum:
    def __init__(self, name, kind, bitwidth=32):
        self.name = name
        self.kind = kind  # "enum" or "bitmask"
        self.bitwidth = bitwidth
        self.values = {}


class Bitmask:
    def __init__(self, name, bits, base, alias=None):
        self.name = name
        self.bits = bits  # enum name or None
        self.base = base  # VkFlags or VkFlags64
        self.alias = alias


class Type:
    def __init__(self, name, category, elem, requires=None, alias=None):
        self.name = name
        self.category = category
        self.elem = elem
        self.requires = requires
        self.alias = alias


class Member:
    def __init__(self, elem):
        self.name = elem.find("name").text
        t = elem.find("type")
        self.type = t.text if t is not None else None
        text = "".join(self._text_parts(elem))
        self.cdecl = " ".join(text.split())
        # array dimensions and bitfield width come after the name
        tail = elem.find("name").tail or ""
        after = tail
        for sub in list(elem):
            if sub.tag == "enum":
                after += "[" + sub.text + "]" if False else ""
        dims = []
        m = re.findall(r"\[([^\]]*)\]", self._after_name(elem))
        for d in m:
            dims.append(d.strip())
        self.array = dims
        bf = re.search(r":\s*(\d+)", self._after_name(elem))
        self.bitfield = bf.group(1) if bf else None
        before = self._before_name(elem)
        self.ctype = " ".join(before.split())
        self.ptrs = before.count("*")
        # const per indirection: split on '*'
        pieces = before.split("*")
        inner_first = ["const" in pieces[i].split() for i in range(self.ptrs)]
        self.const_levels = list(reversed(inner_first))
        self.len = _split(elem.get("len"))
        self.altlen = elem.get("altlen")
        self.optional = [x == "true" for x in _split(elem.get("optional"))]
        self.selector = elem.get("selector")
        self.selection = _split(elem.get("selection"))
        self.values = elem.get("values")
        self.noautovalidity = elem.get("noautovalidity") == "true"
        self.externsync = elem.get("externsync")
        self.objecttype = elem.get("objecttype")
        self.stride = elem.get("stride")
        self.api = elem.get("api")

    @staticmethod
    def _text_parts(elem):
        if elem.text:
            yield elem.text
        for sub in elem:
            if sub.tag == "comment":
                if sub.tail:
                    yield sub.tail
                continue
            if sub.text:
                yield sub.text
            if sub.tail:
                yield sub.tail

    @staticmethod
    def _before_name(elem):
        out = elem.text or ""
        for sub in elem:
            if sub.tag == "name":
                return out
            if sub.tag == "comment":
                out += sub.tail or ""
                continue
            out += (sub.text or "") + (sub.tail or "")
        return out

    @staticmethod
    def _after_name(elem):
        out = ""
        seen = False
        for sub in elem:
            if sub.tag == "comment":
                if seen:
                    out += sub.tail or ""
                continue
            if seen:
                out += (sub.text or "") + (sub.tail or "")
            if sub.tag == "name":
                seen = True
                out += sub.tail or ""
        return out

    @property
    def is_input(self):
        return self.ptrs == 0 or self.const_levels[0]

    def is_optional(self, level=0):
        return len(self.optional) > level and self.optional[level]

    def __repr__(self):
        return "Member(%s)" % self.cdecl


class Struct:
    def __init__(self, name, is_union, elem, api):
        self.name = name
        self.is_union = is_union
        self.returnedonly = elem.get("returnedonly") == "true"
        self.structextends = _split(elem.get("structextends"))
        self.allowduplicate = elem.get("allowduplicate") == "true"
        self.alias = elem.get("alias")
        self.members = [Member(m) for m in elem.findall("member") if _api_ok(m, api)]
        self.stype = None
        self.has_pnext = False
        for m in self.members:
            if m.name == "sType" and m.values:
                self.stype = m.values
            if m.name == "pNext":
                self.has_pnext = True
        self.extended_by = []

    def member(self, name):
        for m in self.members:
            if m.name == name:
                return m
        return None

    def __repr__(self):
        return "Struct(%s)" % self.name


class Handle:
    def __init__(self, name, parent, objtype, dispatchable, alias=None):
        self.name = name
        self.parent = parent
        self.objtype = objtype
        self.dispatchable = dispatchable
        self.alias = alias


class Command:
    def __init__(self, name):
        self.name = name
        self.ret = "void"
        self.params = []
        self.alias = None
        self.successcodes = []
        self.errorcodes = []
        self.queues = []
        self.cmdbufferlevel = []
        self.renderpass = None
        self.required_by = []

    @property
    def is_cmd_buffer(self):
        return bool(self.params) and self.params[0].type == "VkCommandBuffer" and self.params[0].ptrs == 0

    @property
    def dispatch(self):
        if not self.params or self.params[0].ptrs or self.params[0].array:
            return "global"
        return {
            "VkInstance": "instance", "VkPhysicalDevice": "physical_device",
            "VkDevice": "device", "VkQueue": "queue", "VkCommandBuffer": "command_buffer",
        }.get(self.params[0].type, "global")

    def __repr__(self):
        return "Command(%s)" % self.name


class Extension:
    def __init__(self, elem):
        self.name = elem.get("name")
        self.number = int(elem.get("number", "0"))
        self.ext_type = elem.get("type")
        self.supported = _split(elem.get("supported"))
        self.platform = elem.get("platform")
        self.provisional = elem.get("provisional") == "true"
        self.promotedto = elem.get("promotedto")
        self.obsoletedby = elem.get("obsoletedby")
        self.deprecatedby = elem.get("deprecatedby")
        self.depends = elem.get("depends") or elem.get("requires")
        self.commands = []
        self.types = []
        self.enums = []


class Feature:
    def __init__(self, elem):
        self.name = elem.get("name")
        self.number = elem.get("number")
        self.api = _split(elem.get("api"))
        self.commands = []
        self.types = []


def _int_value(s):
    s = s.strip()
    if s.startswith("(") and s.endswith(")"):
        s = s[1:-1]
    s = s.replace("U", "").replace("L", "").replace("l", "")
    neg = False
    if s.startswith("~"):
        return None
    if s.startswith("-"):
        neg = True
        s = s[1:]
    try:
        v = int(s, 0)
    except ValueError:
        return None
    return -v if neg else v


class Registry:
    def __init__(self, path=DEFAULT_PATH, api="vulkan"):
        self.path = path
        self.api = api
        self.root = ET.parse(path).getroot()
        self.platforms = {}
        self.types = {}
        self.structs = {}
        self.handles = {}
        self.enums = {}
        self.bitmasks = {}
        self.commands = {}
        self.features = []
        self.extensions = {}
        self.aliases = {}
        self.constants = {}
        self.version = None
        self._req_by = {}  # name -> [feature/extension names]
        self._parse()

    # -- parsing ---------------------------------------------------------

    def _parse(self):
        api = self.api
        for p in self.root.iter("platform"):
            self.platforms[p.get("name")] = p.get("protect")
        for t in self.root.find("types").findall("type"):
            if not _api_ok(t, api):
                continue
            self._parse_type(t)
        for s in self.structs.values():
            for base in s.structextends:
                b = self.structs.get(base)
                if b is not None and s.name not in b.extended_by:
                    b.extended_by.append(s.name)
        for e in self.root.findall("enums"):
            self._parse_enums(e)
        for c in self.root.find("commands").findall("command"):
            if not _api_ok(c, api):
                continue
            self._parse_command(c)
        for name, cmd in list(self.commands.items()):
            if cmd.alias and not cmd.params:
                tgt = self.commands.get(cmd.alias)
                if tgt is not None:
                    cmd.ret = tgt.ret
                    cmd.params = tgt.params
                    cmd.successcodes = tgt.successcodes
                    cmd.errorcodes = tgt.errorcodes
                    cmd.queues = tgt.queues
                    cmd.cmdbufferlevel = tgt.cmdbufferlevel
                    cmd.renderpass = tgt.renderpass
        for f in self.root.findall("feature"):
            if not _api_ok(f, api):
                continue
            feat = Feature(f)
            self._parse_requires(f, feat, None)
            self.features.append(feat)
        for x in self.root.find("extensions").findall("extension"):
            ext = Extension(x)
            self.extensions[ext.name] = ext
            self._parse_requires(x, ext, ext)
        for cname, cmd in self.commands.items():
            cmd.required_by = self._req_by.get(cname, [])
        self._version()

    def _parse_type(self, t):
        cat = t.get("category")
        name = t.get("name")
        if name is None:
            n = t.find("name")
            name = n.text if n is not None else None
        if name is None:
            return
        alias = t.get("alias")
        self.types[name] = Type(name, cat, t, t.get("requires"), alias)
        if alias:
            self.aliases[name] = alias
        if cat in ("struct", "union"):
            if alias:
                return
            self.structs[name] = Struct(name, cat == "union", t, self.api)
        elif cat == "handle":
            if alias:
                self.handles[name] = Handle(name, None, None, None, alias)
                return
            macro = t.find("type").text
            self.handles[name] = Handle(name, t.get("parent"), t.get("objtypeenum"),
                                        macro == "VK_DEFINE_HANDLE")
        elif cat == "bitmask":
            if alias:
                return
            base = t.find("type").text
            bits = t.get("requires") or t.get("bitvalues")
            self.bitmasks[name] = Bitmask(name, bits, base)
        elif cat == "enum":
            if alias:
                return
            if name not in self.enums:
                self.enums[name] = Enum(name, "enum")

    def _parse_enums(self, e):
        name = e.get("name")
        kind = e.get("type")
        if name == "API Constants":
            for v in e.findall("enum"):
                if not _api_ok(v, self.api):
                    continue
                self.constants[v.get("name")] = v.get("value") or v.get("alias")
            return
        en = self.enums.get(name)
        if en is None:
            en = Enum(name, kind or "enum")
            self.enums[name] = en
        en.kind = kind or "enum"
        en.bitwidth = int(e.get("bitwidth", "32"))
        for v in e.findall("enum"):
            if not _api_ok(v, self.api):
                continue
            self._add_enum_value(en, v, None, None)

    def _add_enum_value(self, en, v, extnumber, ext):
        vname = v.get("name")
        if v.get("alias"):
            ev = EnumValue(vname, None, v.get("alias"), en.name, ext)
        elif v.get("bitpos") is not None:
            ev = EnumValue(vname, 1 << int(v.get("bitpos")), None, en.name, ext, int(v.get("bitpos")))
        elif v.get("value") is not None:
            ev = EnumValue(vname, _int_value(v.get("value")), None, en.name, ext)
        elif v.get("offset") is not None:
            num = int(v.get("extnumber") or extnumber or 0)
            val = 1000000000 + (num - 1) * 1000 + int(v.get("offset"))
            if v.get("dir") == "-":
                val = -val
            ev = EnumValue(vname, val, None, en.name, ext)
        else:
            return None
        if vname not in en.values:
            en.values[vname] = ev
        return en.values[vname]

    def _parse_command(self, c):
        alias = c.get("alias")
        if alias:
            cmd = Command(c.get("name"))
            cmd.alias = alias
            self.commands[cmd.name] = cmd
            return
        proto = c.find("proto")
        cmd = Command(proto.find("name").text)
        cmd.ret = " ".join("".join(Member._text_parts(proto)).replace(cmd.name, "").split())
        cmd.params = [Member(p) for p in c.findall("param") if _api_ok(p, self.api)]
        cmd.successcodes = _split(c.get("successcodes"))
        cmd.errorcodes = _split(c.get("errorcodes"))
        cmd.queues = _split(c.get("queues"))
        cmd.cmdbufferlevel = _split(c.get("cmdbufferlevel"))
        cmd.renderpass = c.get("renderpass")
        self.commands[cmd.name] = cmd

    def _parse_requires(self, elem, target, ext):
        extnumber = ext.number if ext is not None else None
        for req in elem.findall("require"):
            if not _api_ok(req, self.api):
                continue
            for sub in req:
                if not _api_ok(sub, self.api):
                    continue
                n = sub.get("name")
                if sub.tag == "command":
                    if n not in target.commands:
                        target.commands.append(n)
                    self._req_by.setdefault(n, []).append(target.name)
                elif sub.tag == "type":
                    if n not in target.types:
                        target.types.append(n)
                    self._req_by.setdefault(n, []).append(target.name)
                elif sub.tag == "enum":
                    ext_of = sub.get("extends")
                    if ext_of and ext_of in self.enums:
                        ev = self._add_enum_value(self.enums[ext_of], sub, extnumber,
                                                  ext.name if ext else None)
                        if ext is not None and ev is not None:
                            ext.enums.append(ev)
                        self._req_by.setdefault(n, []).append(target.name)
                    else:
                        self._req_by.setdefault(n, []).append(target.name)

    def _version(self):
        major = minor = patch = None
        for t in self.root.find("types").findall("type"):
            if t.get("category") != "define":
                continue
            n = t.find("name")
            if n is None:
                continue
            text = "".join(t.itertext())
            if n.text == "VK_HEADER_VERSION":
                m = re.search(r"VK_HEADER_VERSION\s+(\d+)", text)
                if m:
                    patch = m.group(1)
            elif n.text == "VK_HEADER_VERSION_COMPLETE":
                m = re.search(r"\(\s*\d+\s*,\s*(\d+)\s*,\s*(\d+)", text)
                if m:
                    major, minor = m.group(1), m.group(2)
        if major is not None and patch is not None:
            self.version = "%s.%s.%s" % (major, minor, patch)

    # -- queries ---------------------------------------------------------

    def resolve(self, name):
        seen = set()
        while name in self.aliases and name not in seen:
            seen.add(name)
            name = self.aliases[name]
        return name

    def is_handle(self, name):
        return name in self.handles

    def handle(self, name):
        h = self.handles.get(name)
        if h is not None and h.alias:
            return self.handles.get(self.resolve(name))
        return h

    def is_struct(self, name):
        return self.resolve(name) in self.structs

    def struct(self, name):
        return self.structs.get(self.resolve(name))

    def category(self, name):
        t = self.types.get(name)
        if t is None:
            return None
        if t.alias:
            return self.category(t.alias)
        return t.category

    def is_enum(self, name):
        return self.category(name) == "enum"

    def is_bitmask(self, name):
        return self.category(name) == "bitmask"

    def bitmask_is_64(self, name):
        b = self.bitmasks.get(self.resolve(name))
        return b is not None and b.base == "VkFlags64"

    def required_by(self, name):
        """Feature and extension names whose <require> lists name."""
        return list(self._req_by.get(name, []))

    def _supported_ext(self, xname):
        ext = self.extensions.get(xname)
        return ext is not None and self.api in ext.supported

    def available(self, name):
        """In the C headers generated for this api: required by a core
        feature or by a supported extension (types also when a base type
        or external needs no requirement)."""
        for r in self._req_by.get(name, []):
            if r.startswith("VK_VERSION_") or self._supported_ext(r):
                return True
        return False

    def extensions_of(self, name):
        return [self.extensions[r] for r in self._req_by.get(name, [])
                if r in self.extensions and self._supported_ext(r)]

    def is_core(self, name):
        return any(r.startswith("VK_VERSION_") for r in self._req_by.get(name, []))

    def platform_of(self, name):
        """The platform (e.g. "xcb") of the extensions requiring name when
        every one of them has one and it is not core; else None."""
        if self.is_core(name):
            return None
        plats = set()
        exts = self.extensions_of(name)
        if not exts:
            return None
        for e in exts:
            if e.platform is None:
                return None
            plats.add(e.platform)
        return sorted(plats)[0]

    command_platform = platform_of
    type_platform = platform_of

    def command_extensions(self, name):
        return [e.name for e in self.extensions_of(name)]

    def struct_size_info(self, name):
        """(size, align, has_padding) of a struct or union on x86-64, or
        None when a member's layout is unknown (external types)."""
        s = self.struct(name)
        if s is None:
            return None
        off = 0
        align = 1
        pad = False
        size_u = 0
        bit_used = 0
        for m in s.members:
            lay = self.member_layout(m)
            if lay is None:
                return None
            sz, al, mpad = lay
            pad = pad or mpad
            if m.bitfield is not None:
                # Consecutive bitfields of one 32-bit unit (the only use in vk.xml).
                if bit_used == 0:
                    if off % al:
                        pad = True
                        off += al - off % al
                    off += sz
                bit_used += int(m.bitfield)
                if bit_used >= 32:
                    bit_used = 0
                align = max(align, al)
                continue
            bit_used = 0
            align = max(align, al)
            if s.is_union:
                if size_u and sz != size_u:
                    pad = True
                size_u = max(size_u, sz)
                continue
            if off % al:
                pad = True
                off += al - off % al
            off += sz
        size = size_u if s.is_union else off
        if size % align:
            pad = True
            size += align - size % align
        return (size, align, pad)

    def member_layout(self, m):
        if m.ptrs:
            sz, al, pad = 8, 8, False
        else:
            base = self.scalar_layout(m.type)
            if base is None:
                return None
            sz, al, pad = base
        n = 1
        for d in m.array:
            v = self.const_int(d)
            if v is None:
                return None
            n *= v
        return (sz * n, al, pad)

    def scalar_layout(self, tname):
        t = self.resolve(tname)
        if t in SCALAR_LAYOUT:
            return SCALAR_LAYOUT[t] + (False,)
        cat = self.category(t)
        if cat == "handle":
            return (8, 8, False)
        if cat == "enum":
            return (4, 4, False)
        if cat == "bitmask":
            return (8, 8, False) if self.bitmask_is_64(t) else (4, 4, False)
        if cat == "funcpointer":
            return (8, 8, False)
        if cat == "basetype":
            bt = self.types[t].elem.find("type")
            if bt is not None and bt.text != t:
                return self.scalar_layout(bt.text)
            return None  # opaque (ANativeWindow, CAMetalLayer, ...)
        if cat in ("struct", "union"):
            return self.struct_size_info(t)
        return None

    def const_int(self, text):
        text = text.strip()
        v = _int_value(text)
        if v is not None:
            return v
        if text in self.constants:
            return self.const_int(self.constants[text])
        return None


def load(path=None, api="vulkan"):
    return Registry(path or os.environ.get("VKXML", DEFAULT_PATH), api)


if __name__ == "__main__":
    sys.exit("vkxml.py is a module of scripts/vkgen/gen.py: run python3 scripts/vkgen/gen.py "
             "(make regen)")
