import Foundation
import Testing

/// What the media tests need: the plugin's folder, and their video: 20 s of VP8 noise at
/// 640x360 in WebM, about 19 MB (noise does not compress, so the size is the bitrate's), a
/// keyframe every second, made once with `gst-launch-1.0` (about 45 s on two cores) and kept
/// under /tmp for later runs.
enum MediaFixture {
    /// The builds that play media through GStreamer, and so take `--media-plugin`: the WebKitGTK apps.
    static let apps = HybridApp.available.filter { ["swift", "c", "gtk-python"].contains($0.name) }
    /// The Qt WebEngine build (Chromium), which plays media with no plugin: Chromium's
    /// requests reach its scheme handler with their `Range`.
    static let qtApp = HybridApp.available.first { $0.name == "qt" }
    /// The folder of libgstpkgctl.so (Examples/gst-pkgctl), from `GST_PKGCTL_PLUGIN`.
    static let plugin: String? = ProcessInfo.processInfo.environment["GST_PKGCTL_PLUGIN"].flatMap {
        FileManager.default.isReadableFile(atPath: $0 + "/libgstpkgctl.so") ? $0 : nil
    }
    static let seconds = 20
    static let width = 640
    static let path = "/tmp/pkgctl-media-fixture/noise-640x360-20s-vp8-8mbps.webm"
    /// The file, made on first use (once per suite run at most).
    private static let made: Result<String, TestSupportError> = {
        do throws(TestSupportError) { return .success(try make()) } catch { return .failure(error) }
    }()

    /// The path of the WebM, made if no earlier run left it.
    static func file() throws -> String { try made.get() }

    /// A store of its own holding the video with `page` (`index.html`) and `seekStorm`
    /// (`storm.html`) as package `media`, routed at `www.example.com/app`; the video's path and size.
    static func installedWithPages(page: String, seekStorm: String) throws -> (sandbox: ResolveSandbox, video: String, size: Int) {
        let sandbox = try ResolveSandbox()
        let video = try file()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: video)[.size] as? Int)
        try sandbox.install("media", "1.0.0", routes: ["www.example.com/app"],
                            files: ["index.html": Array(page.utf8), "storm.html": Array(seekStorm.utf8)])
        return (sandbox, video, size)
    }

    private static func make() throws(TestSupportError) -> String {
        if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size > 15_000_000 { return path }
        let partial = path + ".\(getpid()).partial"
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try runCommand("/usr/bin/gst-launch-1.0", [
                "-q", "videotestsrc", "num-buffers=\(seconds * 30)", "pattern=snow", "!",
                "video/x-raw,width=\(width),height=360,framerate=30/1", "!",
                "vp8enc", "target-bitrate=8000000", "end-usage=cbr", "deadline=1", "cpu-used=16", "keyframe-max-dist=30",
                "threads=2", "!", "webmmux", "!", "filesink", "location=\(partial)",
            ])
        } catch {
            unlink(partial)
            throw TestSupportError("gst-launch-1.0 could not make the test WebM: \(error)")
        }
        guard rename(partial, path) == 0 else { throw TestSupportError("rename \(partial): \(String(cString: strerror(errno)))") }
        return path
    }
}
