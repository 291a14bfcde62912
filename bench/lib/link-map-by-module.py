#!/usr/bin/env python3
"""Bytes a linked ELF file holds per module, from lld's link map (-Map; scripts/lib/release-build
links with lld): every input section the link kept that takes file bytes, summed by where it came
from, an archive (libFoundationEssentials.a -> FoundationEssentials) or a SwiftPM module's objects
(PkgCore.build/*.o -> PkgCore). Debug, note and comment sections and .bss are left out.
Usage: link-map-by-module.py MAP   (prints: total, then MB per module, largest first)."""
import collections
import re
import sys

SKIPPED = ('.debug', '.comment', '.note', '.symtab', '.strtab', '.shstrtab', '.bss', '.tbss')
# lld's columns: VMA, LMA, Size (hex), Align (decimal), then the name, indented by its level: an
# output section one space in, an input section nine ("path:(section)"), a symbol seventeen.
ROW = re.compile(r'^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\s*)(\S.*)$')
INPUT_SECTION = re.compile(r'^(.*):\((\S+)\)$')


def module(origin: str) -> str:
    for pattern in (r'lib(\w+)\.a\(', r'/([\w-]+)\.build/', r'([^/]+)$'):
        found = re.search(pattern, origin)
        if found:
            return found.group(1)
    return origin


def main() -> None:
    sizes: collections.Counter = collections.Counter()
    output_section = ''
    for line in open(sys.argv[1], errors='replace'):
        row = ROW.match(line.rstrip('\n'))
        if not row:
            continue
        size, indent, name = int(row.group(1), 16), len(row.group(2)), row.group(3)
        if indent == 0:
            output_section = name
            continue
        section = INPUT_SECTION.match(name)
        if indent != 8 or not section or size == 0 or output_section.startswith(SKIPPED) \
                or section.group(2).startswith(SKIPPED) or section.group(1).startswith('<internal>'):
            continue
        sizes[module(section.group(1))] += size
    if not sizes:
        sys.exit(f"link-map-by-module.py: no input sections read from {sys.argv[1]} (not an lld map?)")
    print(f"total from modules: {sum(sizes.values()):,} bytes")
    for name, size in sizes.most_common():
        if size >= 1000:
            print(f"{size / 1e6:8.3f} MB  {name}")


if __name__ == '__main__':
    main()
