#!/usr/bin/env python3
"""Bytes a linked ELF file holds per module, from GNU ld's link map (-Map): every input section
the link kept that takes file bytes, summed by where it came from, an archive
(libFoundationEssentials.a -> FoundationEssentials) or a SwiftPM module's objects
(PkgCore.build/*.o -> PkgCore). Debug, note and comment sections and .bss are left out.
Usage: link-map-by-module.py MAP   (prints: total, then MB per module, largest first)."""
import collections
import re
import sys

SKIPPED = ('.debug', '.comment', '.note', '.symtab', '.strtab', '.shstrtab', '.bss', '.tbss')


def module(origin: str) -> str:
    for pattern in (r'lib(\w+)\.a\(', r'/([\w-]+)\.build/', r'([^/]+)$'):
        found = re.search(pattern, origin)
        if found:
            return found.group(1)
    return origin


def main() -> None:
    lines = open(sys.argv[1], errors='replace').read().split('\n')
    start = next(i for i, line in enumerate(lines) if line.startswith('Memory map'))
    sizes: collections.Counter = collections.Counter()
    output_section = pending = None
    for line in lines[start + 1:]:
        if line and not line.startswith(' '):
            output_section = line.split()[0]
            continue
        alone = re.match(r'^ (\S+)\s*$', line)      # an input section's long name, its numbers below
        if alone:
            pending = alone.group(1)
            continue
        entry = re.match(r'^ (\S+)?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$', line)
        if not entry:
            continue
        name, pending = entry.group(1) or pending, None
        size = int(entry.group(2), 16)
        if not name or size == 0 or name.startswith('*') or (output_section or '').startswith(SKIPPED) \
                or name.startswith(SKIPPED):
            continue
        sizes[module(entry.group(3))] += size
    print(f"total from modules: {sum(sizes.values()):,} bytes")
    for name, size in sizes.most_common():
        if size >= 1000:
            print(f"{size / 1e6:8.3f} MB  {name}")


if __name__ == '__main__':
    main()
