"""Helpers for bench/avif-encoders.sh.
  select SRC_DIR OUT_DIR [STRIDE]  pick the images pack encodes lossy (by their bytes: JPEGs, and opaque
                             PNGs with more than 256 colours; at least 1024 bytes), write each as an
                             8-bit RGB PNG into OUT_DIR, print "name<TAB>original bytes<TAB>WxH".
                             More than 60: the 40 largest plus every 5th of the rest (sorted by path);
                             then every STRIDE-th of those, sorted by path (default 1: all).
  ssim SRC_DIR RESULTS.tsv   rows "candidate q image cpu bytes decoded.png ..." -> the same rows with the
                             decoded PNG replaced by its SSIM against SRC_DIR/image.png (RGB, data_range 255)."""
import os, sys
import numpy as np
from PIL import Image

def select(src, out, stride="1"):
    found = []
    for root, _, files in os.walk(src):
        for f in files:
            path = os.path.join(root, f)
            if not f.lower().endswith((".png", ".jpg", ".jpeg")):
                continue
            size = os.path.getsize(path)
            if size < 1024:
                continue
            head = open(path, "rb").read(8)
            if head.startswith(b"\x89PNG\r\n\x1a\n"):
                im = Image.open(path)
                if getattr(im, "is_animated", False):
                    continue
                rgba = np.asarray(im.convert("RGBA"))
                if (rgba[..., 3] != 255).any():
                    continue  # lossless only in pack
                flat = rgba.reshape(-1, 4).view(np.uint32).ravel()
                if len(np.unique(flat)) <= 256:
                    continue  # palette-sized: lossless only in pack
            elif head.startswith(b"\xff\xd8\xff"):
                im = Image.open(path)
            else:
                continue
            found.append((os.path.relpath(path, src), size, im))
    found.sort(key=lambda t: t[0])
    if len(found) > 60:
        largest = set(n for n, _, _ in sorted(found, key=lambda t: (-t[1], t[0]))[:40])
        rest = [t for t in found if t[0] not in largest]
        keep = largest | set(n for n, _, _ in rest[::5])
        print(f"# {len(found)} eligible images; using the 40 largest plus every 5th of the other "
              f"{len(rest)} sorted by path: {len(keep)}", file=sys.stderr)
        found = [t for t in found if t[0] in keep]
    else:
        print(f"# {len(found)} eligible images, all used", file=sys.stderr)
    if int(stride) > 1:
        found = found[::int(stride)]
        print(f"# every {stride}th of those by path: {len(found)} images", file=sys.stderr)
    for i, (name, size, im) in enumerate(found):
        rgb = Image.open(os.path.join(src, name)).convert("RGB")
        rgb.save(os.path.join(out, f"{i:03d}.png"), compress_level=1)
        print(f"{i:03d}\t{size}\t{rgb.width}x{rgb.height}\t{name}")

def ssim(srcdir, results):
    from skimage.metrics import structural_similarity
    cache = {}
    for line in open(results):
        cand, q, img, cpu, size, decoded, *rest = line.rstrip("\n").split("\t")
        if img not in cache:
            cache = {img: np.asarray(Image.open(os.path.join(srcdir, img + ".png")).convert("RGB"))}
        ref = cache[img]
        try:
            dec = np.asarray(Image.open(decoded).convert("RGB"))
            s = structural_similarity(ref, dec, channel_axis=2, data_range=255) if dec.shape == ref.shape else float("nan")
        except Exception:
            s = float("nan")
        print("\t".join([cand, q, img, cpu, size, f"{s:.6f}", *rest]), flush=True)

if __name__ == "__main__":
    {"select": select, "ssim": ssim}[sys.argv[1]](*sys.argv[2:])
