"""gen.py - the one entry point of the Vulkan generators: runs every module
over vk.xml and writes their outputs (scripts/regen.sh, make regen).

    python3 scripts/vkgen/gen.py                 # write into the repository
    python3 scripts/vkgen/gen.py --out DIR       # write under DIR instead (tests)
    python3 scripts/vkgen/gen.py --xml PATH      # another vk.xml (default: $VKXML or
                                                 # /usr/share/vulkan/registry/vk.xml)
    python3 scripts/vkgen/gen.py --overrides     # print each exception list of
                                                 # overrides.py and its length

Each module in MODULES has generate(reg) -> {repo-relative path: text}; the
registry model (vkxml.load) is built once and shared.  Files are rewritten
only when their text changes, so regenerating an unchanged tree touches
nothing.  The modules are not programs of their own: run alone, the
generator modules and vkxml exit non-zero saying to run gen.py.

  codec    serializer/generated/sbt_vk_codec.h, sbt_vk_codec_internal.h,
           sbt_vk_codec.c, sbt_vk_dump.c, sbt_vk_ignored.h, sbt_vk_selftest.c
  refs     serializer/generated/sbt_vk_refs.c (the layer's handle walk)
  layer    layers/vulkan/generated/vkl_dispatch.h, vkl_dispatch.c, vkl_wrappers.c
  replay   replayer/generated/rpvk_gen.h, rpvk_gen.c (tsreplay's Vulkan glue)
  formats  serializer/generated/sbt_vk_formats.h, sbt_vk_formats.c (texel
           blocks, aspects and planes per VkFormat)

Shared, writing nothing: vkxml (the registry model), dispatch (the
entry-point tables the layer and the replay share) and overrides (the one
list of exceptions to what vk.xml says, each with its reason).
"""

import argparse
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import overrides  # noqa: E402
import vkxml  # noqa: E402

# The generator modules, in the order they run (see the docstring for what
# each writes).
MODULES = ["codec", "refs", "layer", "replay", "formats"]


def print_overrides():
    """Each exception list of overrides.py (a module-level dict, list,
    tuple or set named in capitals) and its number of entries."""
    for name, value in vars(overrides).items():
        if name.isupper() and not name.startswith("_") and \
                isinstance(value, (dict, list, tuple, set, frozenset)):
            print("%-34s %4d" % (name, len(value)))


def main():
    ap = argparse.ArgumentParser(description="Generate the Vulkan codec, layer and replay code from vk.xml.")
    ap.add_argument("--out", default=os.path.dirname(os.path.dirname(HERE)),
                    help="root to write generated files under (default: the repository)")
    ap.add_argument("--xml", default=None, help="path of vk.xml")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--overrides", action="store_true",
                    help="print each exception list of overrides.py and its length, write nothing")
    args = ap.parse_args()
    if args.overrides:
        print_overrides()
        return
    reg = vkxml.load(args.xml)
    if reg.version is None:
        sys.exit("gen.py: %s has no VK_HEADER_VERSION" % reg.path)
    written = 0
    total = 0
    for name in MODULES:
        mod = importlib.import_module(name)
        for rel, text in sorted(mod.generate(reg).items()):
            total += 1
            path = os.path.join(args.out, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            old = None
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    old = f.read()
            if old != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                written += 1
        if name == "codec" and not args.quiet:
            cx = mod.summary(reg)
            print("gen.py: vk.xml %s: %d/%d commands carried, %d structs, %d pNext structs, "
                  "%d/%d extensions carried" % (
                      reg.version, len(cx.carried_commands()), len(reg.commands), len(cx.structs),
                      len(cx.chain_structs), sum(1 for w in cx.ext_reason.values() if w is None),
                      len(cx.ext_reason)))
    if not args.quiet:
        print("gen.py: %d files, %d rewritten" % (total, written))


if __name__ == "__main__":
    main()
