"""gen.py - runs every Vulkan generator module over vk.xml and writes their outputs.

    python3 scripts/vkgen/gen.py                 # write into the repository
    python3 scripts/vkgen/gen.py --out DIR       # write under DIR instead (tests)
    python3 scripts/vkgen/gen.py --xml PATH      # another vk.xml (default: $VKXML or
                                                 # /usr/share/vulkan/registry/vk.xml)

Each module in MODULES has generate(reg) -> {repo-relative path: text}; the
registry model (vkxml.load) is built once and shared.  Files are rewritten
only when their text changes, so regenerating an unchanged tree touches
nothing.  LAYER and REPLAY append their module names to MODULES.
"""

import argparse
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import vkxml  # noqa: E402

MODULES = ["codec", "refs", "layer"]
MODULES.append("replay")  # tsreplay's Vulkan glue (replayer/generated/)
MODULES.append("formats")  # texel blocks, aspects and planes per VkFormat


def main():
    ap = argparse.ArgumentParser(description="Generate the Vulkan codec, layer and replay code from vk.xml.")
    ap.add_argument("--out", default=os.path.dirname(os.path.dirname(HERE)),
                    help="root to write generated files under (default: the repository)")
    ap.add_argument("--xml", default=None, help="path of vk.xml")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
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
