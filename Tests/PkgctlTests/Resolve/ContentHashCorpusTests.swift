import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Names from the built front-ends of real wheels on PyPI (streamlit 1.66.1: Vite;
/// jupyterlab 4.6.6 and notebook 7.6.5: webpack; gradio 6.29.1: Vite and SvelteKit;
/// bokeh 3.9.2), each marked by reading it, plus the ordinary names the issue lists.
/// A false positive would serve stale bytes for a year, so there must be none; a miss
/// costs a revalidation, so most, not all, hashed names must be seen.
@Suite struct ContentHashCorpusTests {
    static let hashed = [
        // streamlit/static/static/js, css, media (Vite `[name].[hash].js`)
        "static/js/ArrowVegaLiteChart.C7VsfKqo.js", "static/js/useWaveformController.ClXnfk0m.js",
        "static/js/ErrorOutline.esm.CS4C5u_b.js", "static/js/classDiagram-ZZMXUADV.DYoya7zn.js",
        "static/js/Particles.DNEtAlif.js", "static/js/swimlanes-42K2YHIH.DWtM7zRz.js", "static/js/remark-emoji.B0mKIVIF.js",
        "static/js/sizeCapture-INFHLROL.C-RahmM2.js", "static/media/SourceSerifVariable-Italic.ttf.CVdzAtxO.woff2",
        "static/js/loglevel.isY9rJjs.js", "static/js/channel.1xmGIIgp.js", "static/js/InputInstructions.DhFz6BY9.js",
        "static/js/string.6Z3wlNKv.js", "static/js/CameraInput.Dm7lRoiO.js", "static/js/mermaid.core.Yg6sqkf9.js",
        "static/js/railroadDiagram-O6MQD6OU.B7jW8tSH.js", "static/media/KaTeX_Caligraphic-Regular.Di6jR-x-.woff2",
        "static/js/rehype-katex.CnO_s45P.js", "static/js/cubic.yzfkjm1T.js", "static/js/chunk-GVQU2GXP.C867jRFN.js",
        "static/js/webgl-device.DiwA7-iA.js", "static/js/MenuButton.CNi3wIt4.js", "static/js/formatMoment.CVxEWQ-Q.js",
        "static/js/Cancel.esm.DeTJ68K0.js", "static/js/Balloons.BgIvDoIS.js", "static/js/DataFrame.PZArLJF-.js",
        "static/js/ChatInput.yDWcsjfq.js", "static/js/Text.BGYNDAPw.js", "static/js/axios.BMCjfgfu.js",
        "static/js/FileSystemHandle.CFTLjada.js", "static/js/UriUtil.Buqblitv.js", "static/js/Slider.aBCDZLFJ.js",
        "static/js/diagram-VSXAHHWV.sgbqbqSN.js", "static/js/Snow.CldkOtlp.js", "static/js/downloader.BrkuwUyl.js",
        // jupyterlab and notebook static (webpack `[id].[contenthash].js`, `[hash][ext]` assets)
        "static/9797.295a890d8a6fc477.js", "static/802.baec760badc948a1.js", "static/6544.a6dd73c3eb3b7acc.js",
        "static/930ff9daccdf14eb.woff2", "static/e95c7fd8b5e37b42.woff", "static/d494d07f67e363f6.woff2",
        "static/290.7a96c9174b608149.js", "static/1713.8e6132f0bdddbd4e.js", "static/0031b1860ea4ad75.woff",
        // gradio frontend/assets (Vite `[name]-[hash].js`, Rollup's numeric suffix)
        "assets/MSFT_sRGBFactors-BbWcqV9-.js", "assets/ckb-DD3xg0YZ.js", "assets/Index-BuUrJMs7.js",
        "assets/flowGraphSetDelayBlock-BhmH_eET.js", "assets/KaTeX_Main-Bold-Cx986IdX.woff2",
        "assets/procedural.vertex-C47TVAon.js", "assets/diagram-Z3DM3KII-DXxXsMXP.js", "assets/Index-YfXSgqSc.css",
        "assets/Example-Cffez8pX.js", "assets/rgbdDecode.fragment-t3PlKoSE.js", "assets/treemap-WGGIJYW6-Cgqo29-v.js",
        "assets/xychartDiagram-S5SC5T6Z-BwEzhfqu.js", "assets/eventmodeling-NTZA5JFV-Brkycush.js", "assets/pt-BRG6qxj-.js",
        "assets/KHR_materials_anisotropy-ClaC920H.js", "assets/Index-CN69Lnk72.js", "assets/Index-DPg9tihY2.js",
        "assets/Index-URhO-7rb2.js", "assets/CanvasTextSystem-LWrpfjMV.js", "assets/EXT_lights_image_based-fSEGelut.js",
        "assets/Example-lYSPCOGC.js", "assets/Index-BARIKWon.css", "assets/Settings-BtJcjjBi.js",
        "assets/abstractAudioBus-nlXbAloq.js", "assets/KHR_materials_volume-Dyxwopcw.js",
        // gradio's SvelteKit client (`_app/immutable/`), esbuild and Next.js conventions
        "client/_app/immutable/assets/0.lJowgZ8L.css", "client/_app/immutable/nodes/2.BLYvfymt.js",
        "client/_app/immutable/chunks/B-OM1-hR.js", "chunk-NGNAAXSQ.js", "main.3f2a9c1b7d.js", "index.8f2a3b4c.js",
        "_next/static/chunks/pages/_app.js", "_next/static/css/styles.css",
    ]

    static let ordinary = [
        // The names the issue lists.
        "getElementById.js", "useCallback.js", "ReactDOMServer.js", "README.md", "favicon-32x32.png", "jquery-3.7.1.min.js",
        // bokeh
        "js/bokeh-api.min.js", "js/bokeh-gl.js", "js/bokeh-widgets.min.js", "js/compiler.js", "_sri/0.12.6.json",
        "_sri/3.9.0.json", "static/bokeh/3.8.1/bokeh-3.8.1.min.js", "static/bokeh/3.8.1/bokeh-widgets-3.8.1.min.js",
        // jupyterlab and notebook
        "static/index.out.js", "static/third-party-licenses.json", "static/build_log.json", "static/bootstrap.js",
        "static/style.js", "static/package.json", "static/index.html", "staging/webpack.prod.minimize.config.js",
        "staging/publicpath.js", "schemas/kernels-settings.json", "schemas/sessionDialogs.json", "schemas/utilityCommands.json",
        "schemas/context-menu.json", "schemas/open-browser-tab.json", "schemas/full-width-notebook.json",
        "schemas/edit-notebook-metadata.json", "node-version-check.js", "browser-test.js", "templates/partial.html",
        // gradio
        "static/fonts/IBMPlexMono-SemiBold.woff2", "static/fonts/SourceSansPro-Regular.woff2", "static/fonts/Montserrat-Bold.woff2",
        "static/fonts/ChakraPetch-SemiBold.woff2", "static/fonts/Inconsolata-Regular.woff2", "static/img/undo-solid.svg",
        "static/img/logo_nosize.svg", "static/img/api-logo.svg", "icons/huggingface-logo.svg", "images/hf-logo_transpng.png",
        "images/cheetah1.jpg", "static/js/iframeResizer.contentWindow.min.js", "static/ffmpeg/ffmpeg-core.wasm",
        "build/proxy_routes.js", "build/package-lock.json", "node_modules/follow-redirects/debug.js",
        "node_modules/http-proxy/lib/http-proxy/passes/web-incoming.js", "templates/hooks.mjs", "cli/gradio.config.js",
        // streamlit
        "favicon.png", "manifest.json", "index.html",
        // words where a hash could stand
        "js/jquery.validate.js", "js/moment.timezone.js", "shaders/pbr.fragment.js", "fonts/Inter-Variable.woff2",
        "fonts/Roboto-Semibold.woff2", "js/react-ReactDOM.js", "js/vendor-HTMLview.js", "docs/chapter-20231231.html",
        "js/abc-def-ghij.js", "lib/some_thing.js", "lib/file-uploader.js", "css/theme-Settings.css", "next/static/app.js",
        // Font Awesome's fonts (unhashed, and they change between releases)
        "webfonts/fa-brands-400.woff2", "webfonts/fa-solid-900.woff2", "webfonts/fa-regular-400.ttf",
    ]

    @Test func noOrdinaryNameIsTakenForHashed() {
        let wrong = Self.ordinary.filter(CachePolicy.isFingerprinted)
        #expect(wrong.isEmpty, "false positives: \(wrong)")
    }

    @Test func nearlyEveryHashedNameIsSeen() {
        let missed = Self.hashed.filter { !CachePolicy.isFingerprinted($0) }
        #expect(Double(missed.count) <= Double(Self.hashed.count) * 0.1, "missed \(missed.count) of \(Self.hashed.count): \(missed)")
        // Each convention is seen at least once.
        for name in ["static/9797.295a890d8a6fc477.js", "static/930ff9daccdf14eb.woff2", "static/js/Particles.DNEtAlif.js",
                     "assets/Index-BuUrJMs7.js", "assets/Index-CN69Lnk72.js", "assets/pt-BRG6qxj-.js", "chunk-NGNAAXSQ.js",
                     "client/_app/immutable/chunks/B-OM1-hR.js", "_next/static/css/styles.css",
                     "static/media/KaTeX_Caligraphic-Regular.Di6jR-x-.woff2"] {
            #expect(CachePolicy.isFingerprinted(name), "\(name)")
        }
    }
}
