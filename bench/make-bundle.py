#!/usr/bin/env python3
"""Writes a realistic web bundle source tree: about 1,500 files and 25 MB of
html/js/css/json text (compressible) and images (incompressible), nested
folders. Deterministic (seeded). SCALE multiplies the number of files (6.666 gives
about 10,000). Usage: make-bundle.py OUT_DIR [SEED] [SCALE]"""
import os, random, sys

out = sys.argv[1]
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
scale = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
words = ("const let function return value state render props module export import "
         "div span class style color margin padding button input form table data "
         "user item list page view layout grid flex border width height").split()

def text(size, joiner=" "):
    parts, total = [], 0
    while total < size:
        word = rng.choice(words)
        parts.append(word)
        total += len(word) + 1
    return joiner.join(parts)[:size]

plan = [  # (folder pattern, count, extension, size range, binary)
    ("pages/section{}", 300, "html", (2_000, 12_000), False),
    ("js/chunks/{}", 450, "js", (3_000, 25_000), False),
    ("css/themes/{}", 150, "css", (1_000, 8_000), False),
    ("data/{}", 250, "json", (500, 6_000), False),
    ("img/gallery/{}", 300, "jpg", (15_000, 100_000), True),
    ("img/icons", 50, "png", (500, 3_000), True),
]
files = 0
total = 0
for folder, count, ext, (low, high), binary in plan:
    for i in range(round(count * scale)):
        directory = os.path.join(out, folder.format(i % 12))
        os.makedirs(directory, exist_ok=True)
        size = rng.randint(low, high)
        path = os.path.join(directory, f"{ext}-{i:04d}.{ext}")
        with open(path, "wb") as f:
            f.write(rng.randbytes(size) if binary else text(size).encode())
        files += 1
        total += size
with open(os.path.join(out, "index.html"), "w") as f:
    f.write("<!doctype html><title>bench</title><h1>bench bundle</h1>\n")
print(f"{files + 1} files, {total / 1e6:.1f} MB in {out}", file=sys.stderr)
