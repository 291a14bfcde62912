/*
 * The cost of a local hit through the C ABI (bench/abi.sh): a task started with
 * pkgctl_task_start(), its callbacks run by pkgctl_resolver_dispatch() from a poll(2) loop on
 * the resolver's descriptor until the end, then pkgctl_task_stop(); one task at a time.
 *
 *   resolver_bench STORE URL N    prints "abi local hit (start → end → stop): median M ns, p90 P ns (N runs)"
 * With RESOLVER_BENCH_COUNT_ONLY set it runs 1,000 warm-up hits and N more, untimed (for
 * counting allocations under valgrind's DHAT).
 */
#define _POSIX_C_SOURCE 200809L
#include <pkgctl/resolver.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    int status;
    size_t bytes;
    int ended;
    int result;
} hit;

static void on_response(void *user, int32_t status, const pkgctl_header *headers, size_t count) {
    (void)headers;
    (void)count;
    ((hit *)user)->status = status;
}

static void on_data(void *user, const void *bytes, size_t length) {
    (void)bytes;
    ((hit *)user)->bytes += length;
}

static void on_end(void *user, int32_t result, const char *message) {
    (void)message;
    ((hit *)user)->ended = 1;
    ((hit *)user)->result = result;
}

static const pkgctl_task_callbacks callbacks = {on_response, on_data, on_end};

/* One local hit; exits on anything but a whole 200. */
static void run_hit(pkgctl_resolver *resolver, const char *url) {
    hit state = {0};
    pkgctl_header accept = {"Accept", "*/*"};
    pkgctl_task *task = pkgctl_task_start(resolver, "GET", url, &accept, 1, NULL, 0, &callbacks, &state);
    struct pollfd ready = {.fd = pkgctl_resolver_fd(resolver), .events = POLLIN};
    for (int rounds = 0; !state.ended && rounds < 100000; rounds++) {
        if (poll(&ready, 1, 1000) < 0) break;
        pkgctl_resolver_dispatch(resolver);
    }
    pkgctl_task_stop(task);
    if (!state.ended || state.result != PKGCTL_OK || state.status != 200 || state.bytes == 0) {
        fprintf(stderr, "resolver_bench: %s: status %d result %d after %zu bytes\n", url, state.status,
                state.result, state.bytes);
        exit(1);
    }
}

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: resolver_bench STORE URL N\n");
        return 64;
    }
    long count = atol(argv[3]);
    if (count < 1 || count > 10000000) {
        fprintf(stderr, "resolver_bench: N must be 1 to 10000000, not '%.32s'\n", argv[3]);
        return 64;
    }
    /* Not offline (as ResolveBench): offline, every start plans the request once more to find misses. */
    pkgctl_resolver_options options = {.struct_size = sizeof options, .store_root = argv[1]};
    char error[256];
    pkgctl_resolver *resolver = pkgctl_resolver_create(&options, error, sizeof error);
    if (!resolver) {
        fprintf(stderr, "resolver_bench: %s\n", error);
        return 1;
    }
    for (int i = 0; i < 1000; i++) run_hit(resolver, argv[2]);
    if (getenv("RESOLVER_BENCH_COUNT_ONLY")) {
        for (long i = 0; i < count; i++) run_hit(resolver, argv[2]);
    } else {
        uint64_t *samples = malloc(sizeof *samples * (size_t)count);
        for (long i = 0; i < count; i++) {
            uint64_t start = now_ns();
            run_hit(resolver, argv[2]);
            samples[i] = now_ns() - start;
        }
        qsort(samples, (size_t)count, sizeof *samples, compare);
        printf("abi local hit (start → end → stop): median %llu ns, p90 %llu ns (%ld runs)\n",
               (unsigned long long)samples[count / 2], (unsigned long long)samples[count * 9 / 10], count);
        free(samples);
    }
    pkgctl_resolver_destroy(resolver);
    return 0;
}
