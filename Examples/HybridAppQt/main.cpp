// hybrid-app-qt: a Qt WebEngine (Chromium) window on an app:// URL served from pkgctl's store
// through the resolver's C ABI (pkgctl/resolver.h). The Chromium twin of Examples/HybridAppC.
#include "app_window.h"
#include "engine_environment.h"
#include "log.h"
#include "scheme_handler.h"

#include <QApplication>
#include <QWebEngineUrlScheme>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <getopt.h>
#include <sys/signalfd.h>

namespace {

// EX_USAGE: the command line was wrong.
constexpr int exitUsage = 64;

const char usage[] =
    "usage: hybrid-app-qt --root DIR [--scheme app] [--upstream URL] [--ca-file PEM] [--offline]\n"
    "                     [--dump-dom] [--screenshot PNG] [--wait-for JS] [--loads N] [--timeout SECONDS] URL\n"
    "Open a page whose custom scheme is served by pkgctl's resolver in a Qt WebEngine (Chromium) window.\n"
    "  --root DIR         the pkgctl store to serve (as `pkgctl update --root`)\n"
    "  --scheme NAME      the custom scheme to register (default: app)\n"
    "  --upstream URL     origin for files no package has (default: https://HOST of the request)\n"
    "  --ca-file PEM      the CAs trusted for the origin\n"
    "  --offline          never ask the origin: a file no package has fails\n"
    "  --dump-dom         print the page's DOM after the load, then exit (non-zero on a load failure or timeout)\n"
    "  --screenshot PNG   write a PNG of the rendered page, then exit\n"
    "  --wait-for JS      an expression to wait for (polled after the load) before --dump-dom/--screenshot\n"
    "  --loads N          loads to report before exiting; SIGHUP reloads the page (default: 1)\n"
    "  --timeout SECONDS  seconds to allow for --dump-dom/--screenshot (default: 30)\n";

// One line on what is wrong with the command line, and the usage status.
[[noreturn]] void refuse(const QString &message) {
    logLine(message + " (see --help)");
    std::exit(exitUsage);
}

// `text` as a whole number of at least 1 (smaller ones count as 1, as the other apps do).
unsigned positive(const char *option, const char *text, long maximum) {
    char *end;
    errno = 0;
    long value = std::strtol(text, &end, 10);
    if (errno || end == text || *end || value > maximum) {
        refuse(QString("%1 takes a whole number up to %2, not %3").arg(option).arg(maximum).arg(text));
    }
    return value < 1 ? 1 : unsigned(value);
}

// The scheme as a real app registers it; README.md says why each flag is set.
void registerScheme(const QByteArray &name) {
    QWebEngineUrlScheme scheme(name);
    scheme.setSyntax(QWebEngineUrlScheme::Syntax::Host);
    scheme.setFlags(QWebEngineUrlScheme::SecureScheme | QWebEngineUrlScheme::CorsEnabled);
    QWebEngineUrlScheme::registerScheme(scheme);
}

// SIGHUP (reload), SIGINT and SIGTERM as a descriptor for the main loop. Blocked before any
// thread starts, so Chromium's threads inherit the mask and the signalFd wait for the loop.
int signalDescriptor() {
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGHUP);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &handled, nullptr);
    return signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
}

}  // namespace

int main(int argc, char **argv) {
    enum { ROOT = 256, SCHEME, UPSTREAM, CA_FILE, OFFLINE, DUMP_DOM, SCREENSHOT, WAIT_FOR, LOADS, TIMEOUT, HELP };
    static const option options[] = {
        {"root", required_argument, nullptr, ROOT},         {"scheme", required_argument, nullptr, SCHEME},
        {"upstream", required_argument, nullptr, UPSTREAM}, {"ca-file", required_argument, nullptr, CA_FILE},
        {"offline", no_argument, nullptr, OFFLINE},         {"dump-dom", no_argument, nullptr, DUMP_DOM},
        {"screenshot", required_argument, nullptr, SCREENSHOT}, {"wait-for", required_argument, nullptr, WAIT_FOR},
        {"loads", required_argument, nullptr, LOADS},       {"timeout", required_argument, nullptr, TIMEOUT},
        {"help", no_argument, nullptr, HELP},               {nullptr, 0, nullptr, 0},
    };
    ResolverSettings settings;
    QByteArray scheme = "app";
    AppReport report;
    unsigned timeout = 30;
    opterr = 0;  // getopt's own messages are replaced by one line of ours
    for (int option; (option = getopt_long(argc, argv, ":h", options, nullptr)) != -1;) {
        switch (option) {
        case ROOT: settings.root = optarg; break;
        case SCHEME: scheme = optarg; break;
        case UPSTREAM: settings.upstream = optarg; break;
        case CA_FILE: settings.caFile = optarg; break;
        case OFFLINE: settings.offline = true; break;
        case DUMP_DOM: report.dumpDom = true; break;
        case SCREENSHOT: report.screenshot = QString::fromLocal8Bit(optarg); break;
        case WAIT_FOR: report.waitFor = QString::fromUtf8(optarg); break;
        case LOADS: report.loads = positive("--loads", optarg, INT_MAX); break;
        case TIMEOUT: timeout = positive("--timeout", optarg, INT_MAX / 1000); break;
        case HELP:
        case 'h': std::fputs(usage, stdout); return 0;
        case ':': refuse(QString("missing value for ") + argv[optind - 1]);
        default: refuse(QString("unknown option ") + argv[optind - 1]);
        }
    }
    if (settings.root.isEmpty()) refuse("missing --root DIR");
    if (optind != argc - 1) refuse(optind == argc ? "missing the URL to open" : QString("more than one URL: ") + argv[argc - 1]);
    const QUrl url = QUrl::fromEncoded(argv[optind]);

    std::signal(SIGPIPE, SIG_IGN);
    const int signalFd = signalDescriptor();
    engineEnvironmentPrepare();
    registerScheme(scheme);  // before QApplication, as QWebEngineUrlScheme requires
    // Qt sees no argument of ours: they are the app's, not Qt's or Chromium's.
    static int qtArgc = 1;
    QApplication application(qtArgc, argv);
    SchemeHandler *handler = SchemeHandler::create(settings);
    if (!handler) return 1;
    appWindowOpen(handler, scheme, report, url, timeout, signalFd);
    return application.exec();
}
