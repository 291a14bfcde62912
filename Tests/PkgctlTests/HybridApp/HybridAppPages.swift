/// The test pages the hybrid-app tests install in a package, as an app
/// developer would ship them. Each writes its verdict into `#out` and sets
/// `document.body.dataset.done` when it is finished.
enum HybridAppPages {
    static let waitForDone = "document.body && document.body.dataset.done"

    static let local = "window.localRan = true;\n"

    /// Package script + one only the origin has + (second page) one the origin never served.
    static func scripts(_ names: [String]) -> String {
        let tags = names.map { "<script src=\"js/\($0).js\"></script>" }.joined(separator: "\n")
        return """
            <!doctype html><html><head><meta charset="utf-8">
            \(tags)
            </head><body><p id="out">waiting</p><script>
            window.addEventListener('load', () => {
              document.getElementById('out').textContent = ['local', 'origin', 'later']
                .map((name) => name + ':' + (window[name + 'Ran'] ? 'yes' : 'no')).join(' ');
              document.body.dataset.done = '1';
            });
            </script></body></html>
            """
    }

    /// A page that navigates away 50 ms after it starts, while `images` images still come
    /// slowly from the origin: its load is superseded, and `index.html` is what counts.
    static func navigatesWhileLoading(images: Int) -> String {
        let tags = (0..<images).map { "<img src=\"/slow/img/\($0).png\">" }.joined()
        return """
            <!doctype html><html><body><p id="out">leaving</p>\(tags)<script>
            setTimeout(() => { location.href = 'index.html'; }, 50);
            </script></body></html>
            """
    }

    static let post = """
        <!doctype html><html><body><p id="out">waiting</p><script>
        fetch('/echo-post', { method: 'POST', body: 'hello from webkit', headers: { 'Content-Type': 'text/plain' } })
          .then((response) => response.text())
          .then((text) => { document.getElementById('out').textContent = 'answer:' + text.trim(); })
          .catch((error) => { document.getElementById('out').textContent = 'error:' + error; })
          .finally(() => { document.body.dataset.done = '1'; });
        </script></body></html>
        """

    /// `total` loads abandoned mid-stream, `parallel` at a time: even ones an
    /// iframe removed while its page streams, odd ones a fetch aborted after its first chunk.
    static func storm(total: Int, parallel: Int) -> String {
        """
        <!doctype html><html><body><p id="out">waiting</p><script>
        const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
        async function abandon(i) {
          if (i % 2 === 0) {
            const frame = document.createElement('iframe');
            frame.src = '/stream/big.html?i=' + i;
            document.body.appendChild(frame);
            await sleep(40);
            frame.src = 'about:blank';
            await sleep(10);
            frame.remove();
          } else {
            const controller = new AbortController();
            try {
              const response = await fetch('/stream/big.bin?i=' + i, { signal: controller.signal });
              await response.body.getReader().read();
            } catch (e) {}
            controller.abort();
          }
        }
        window.addEventListener('load', async () => {
          await sleep(1000);  // the app takes its baseline (descriptors, memory) after the load event
          let next = 0;
          const worker = async () => { while (next < \(total)) { await abandon(next++); } };
          await Promise.all(Array.from({ length: \(parallel) }, worker));
          document.getElementById('out').textContent = 'abandoned:' + next;
          await sleep(2000);  // WebKit lets go of the dropped streams
          document.body.dataset.done = '1';
        });
        </script></body></html>
        """
    }

    /// Reads `path` through a ReadableStream, hashing each chunk before asking for the next.
    static func slowReader(path: String) -> String {
        """
        <!doctype html><html><body><p id="out">waiting</p><script>
        \(sha256)
        (async () => {
          try {
            const response = await fetch('\(path)');
            const reader = response.body.getReader();
            const hash = new SHA256();
            let total = 0;
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              hash.update(value);
              total += value.length;
            }
            document.getElementById('out').textContent = 'bytes:' + total + ' sha256:' + hash.hex();
          } catch (error) {
            document.getElementById('out').textContent = 'error:' + error;
          }
          document.body.dataset.done = '1';
        })();
        </script></body></html>
        """
    }

    /// An incremental SHA-256 (FIPS 180-4): WebCrypto only hashes a whole buffer.
    static let sha256 = """
        class SHA256 {
          constructor() {
            this.h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
            this.k = new Uint32Array([
              0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
              0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
              0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
              0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
              0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
              0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
              0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
              0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);
            this.w = new Uint32Array(64);
            this.block = new Uint8Array(64);
            this.used = 0;
            this.length = 0;
          }
          compress(bytes, at) {
            const w = this.w, k = this.k, h = this.h;
            for (let i = 0; i < 16; i++) {
              w[i] = (bytes[at + 4 * i] << 24) | (bytes[at + 4 * i + 1] << 16) | (bytes[at + 4 * i + 2] << 8) | bytes[at + 4 * i + 3];
            }
            for (let i = 16; i < 64; i++) {
              const a = w[i - 15], b = w[i - 2];
              const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
              const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
              w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
            }
            let [a, b, c, d, e, f, g, hh] = h;
            for (let i = 0; i < 64; i++) {
              const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
              const t1 = (hh + S1 + ((e & f) ^ (~e & g)) + k[i] + w[i]) | 0;
              const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
              const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
              hh = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
            }
            h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
          }
          update(bytes) {
            let i = 0;
            this.length += bytes.length;
            if (this.used > 0) {
              while (i < bytes.length && this.used < 64) this.block[this.used++] = bytes[i++];
              if (this.used < 64) return;
              this.compress(this.block, 0);
              this.used = 0;
            }
            for (; i + 64 <= bytes.length; i += 64) this.compress(bytes, i);
            while (i < bytes.length) this.block[this.used++] = bytes[i++];
          }
          hex() {
            const bits = this.length * 8;
            const tail = new Uint8Array(this.used < 56 ? 64 : 128);
            tail.set(this.block.subarray(0, this.used));
            tail[this.used] = 0x80;
            const view = new DataView(tail.buffer);
            view.setUint32(tail.length - 8, Math.floor(bits / 0x100000000));
            view.setUint32(tail.length - 4, bits >>> 0);
            for (let at = 0; at < tail.length; at += 64) this.compress(tail, at);
            return Array.from(this.h, (x) => x.toString(16).padStart(8, '0')).join('');
          }
        }
        """

    /// A page that draws each image of `paths` and the copy of it named `PATH.orig` on canvases
    /// and writes, once loaded, `drawn WxH diff=MEAN bytes=B/C ; …`: the size the engine decoded,
    /// the mean difference per channel against the copy, and the bytes each crossed (resource
    /// timing's `encodedBodySize`; `?` where the engine does not say).
    static func imagesComparedWithOriginals(_ paths: [String]) -> String {
        let images = paths.map { "<img src=\"\($0)\"><img src=\"\($0).orig\">" }.joined()
        return """
            <!doctype html><meta charset=utf-8><title>gallery</title><div id=out>not loaded</div>\(images)
            <script>
            addEventListener('load', () => {
              const pixels = image => {
                const canvas = document.createElement('canvas');
                canvas.width = image.naturalWidth; canvas.height = image.naturalHeight;
                const context = canvas.getContext('2d');
                context.drawImage(image, 0, 0);
                return context.getImageData(0, 0, canvas.width, canvas.height).data;
              };
              const images = [...document.images], report = [];
              for (let i = 0; i < images.length; i += 2) {
                const variant = pixels(images[i]), original = pixels(images[i + 1]);
                let difference = 0;
                for (let j = 0; j < original.length; j++) difference += Math.abs(variant[j] - original[j]);
                const size = image => (performance.getEntriesByName(image.src)[0] || {}).encodedBodySize || '?';
                report.push(images[i].naturalWidth + 'x' + images[i].naturalHeight + ' diff='
                            + (difference / Math.max(original.length, 1)).toFixed(2)
                            + ' bytes=' + size(images[i]) + '/' + size(images[i + 1]));
              }
              document.getElementById('out').textContent = 'drawn ' + report.join(' ; ');
              document.body.dataset.done = '1';
            });
            </script>
            """
    }

    /// A kiosk page whose script and image only the origin has: `script:yes|no image:WxH|no` once loaded.
    static let kiosk = """
        <!doctype html><meta charset=utf-8><title>kiosk</title><p id=out>loading</p>
        <img id=banner src="img/banner.png"><script src="js/origin.js"></script>
        <script>
        addEventListener('load', () => {
          const banner = document.getElementById('banner');
          document.getElementById('out').textContent = 'script:' + (window.originRan ? 'yes' : 'no') + ' image:'
            + (banner.naturalWidth ? banner.naturalWidth + 'x' + banner.naturalHeight : 'no');
          document.body.dataset.done = '1';
        });
        </script>
        """

    /// One image as ``imagesComparedWithOriginals(_:)`` reports it.
    struct DrawnImage {
        /// `WxH` as the engine decoded it (`0x0`: it did not).
        let size: String
        /// Mean difference per channel against the original.
        let difference: Double
        /// Bytes the image and its original crossed; nil where the engine does not say.
        let bytes: (image: Int, original: Int)?
    }

    /// The images a page made by ``imagesComparedWithOriginals(_:)`` reported in `dom`; nil when
    /// it reported nothing (it did not load) or something else.
    static func drawnImages(in dom: String) -> [DrawnImage]? {
        guard let report = dom.components(separatedBy: "id=\"out\">drawn ").dropFirst().first?
            .components(separatedBy: "<").first else { return nil }
        var images: [DrawnImage] = []
        for image in report.components(separatedBy: " ; ") {
            let fields = image.split(separator: " ")
            guard fields.count == 3, fields[1].hasPrefix("diff="), let difference = Double(fields[1].dropFirst(5)),
                  fields[2].hasPrefix("bytes=") else { return nil }
            let sizes = fields[2].dropFirst(6).split(separator: "/").compactMap { Int($0) }
            images.append(DrawnImage(size: String(fields[0]), difference: difference,
                                     bytes: sizes.count == 2 ? (sizes[0], sizes[1]) : nil))
        }
        return images
    }
}
