"""dispatch - what the layer and the replay generators share: which dispatch
level a command belongs to, platform guards, and the tables of entry points
(one struct per level, filled from vkGetInstanceProcAddr /
vkGetDeviceProcAddr).  The layer's table holds the next layer's entry
points, the replayer's the live ones; both are generated here so they
cannot drift apart.
"""

INSTANCE_LEVELS = ("instance", "physical_device")
DEVICE_LEVELS = ("device", "queue", "command_buffer")


def member(name):
    """Table member of command name: vkCmdDraw -> CmdDraw."""
    return name[2:]


def guard(reg, name):
    """The platform macro a command needs (#ifdef), or None."""
    plat = reg.command_platform(name)
    return reg.platforms[plat] if plat else None


def emit_guarded(out, g, lines):
    if g:
        out.append("#ifdef %s" % g)
    out.extend(lines)
    if g:
        out.append("#endif")


def table_structs(reg, cmds, itable, dtable):
    """typedef struct itable {...} itable; and the same for dtable."""
    out = []
    for level, tname in ((INSTANCE_LEVELS, itable), (DEVICE_LEVELS, dtable)):
        out.append("typedef struct %s {" % tname)
        for n, c in cmds:
            if c.dispatch in level:
                emit_guarded(out, guard(reg, n), ["\tPFN_%s %s;" % (n, member(n))])
        out.append("} %s;" % tname)
        out.append("")
    return out


def of_instance_extension(reg, name):
    """Whether device-level command name comes only from instance
    extensions (VK_EXT_debug_utils' eight).  The loader fills its own device
    table's entries for these from the instance chain's
    vkGetInstanceProcAddr, whose terminators stand in where the driver lacks
    them; the chain's vkGetDeviceProcAddr may give NULL for them."""
    exts = reg.extensions_of(name)
    return (not reg.is_core(name) and bool(exts) and
            all(e.ext_type == "instance" for e in exts))


DEVICE_FILL_GIPA = ", VkInstance instance, PFN_vkGetInstanceProcAddr gipa"


def table_fills(reg, cmds, itable, ifill, dtable, dfill, device_gipa=False):
    """The two fill functions: every member from gipa / gdpa by name; with
    device_gipa, the device fill also takes the instance chain's gipa and
    fills the commands of_instance_extension from it, as the loader does
    (a layer's table)."""
    out = []
    for level, tname, fn, h, gpa in (
            (INSTANCE_LEVELS, itable, ifill, "VkInstance instance",
             "PFN_vkGetInstanceProcAddr gipa"),
            (DEVICE_LEVELS, dtable, dfill, "VkDevice device", "PFN_vkGetDeviceProcAddr gdpa")):
        hv, gv = h.split()[1], gpa.split()[1]
        more = DEVICE_FILL_GIPA if device_gipa and level is DEVICE_LEVELS else ""
        out.append("void %s(%s *t, %s, %s%s)" % (fn, tname, h, gpa, more))
        out.append("{")
        for n, c in cmds:
            if c.dispatch in level:
                h_n, g_n = hv, gv
                if more and of_instance_extension(reg, n):
                    h_n, g_n = "instance", "gipa"
                emit_guarded(out, guard(reg, n), [
                    '\tt->%s = (PFN_%s)%s(%s, "%s");' % (member(n), n, g_n, h_n, n)])
        out.append("}")
        out.append("")
    return out
