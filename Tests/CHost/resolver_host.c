/*
 * A plain C host of the pkgctl resolver, built by the tests against pkgctl/resolver.h and
 * libpkgctl-resolver through pkg-config (ResolverCABITests), as a GLib or Qt app would be.
 * It drives the resolver from a poll(2) loop on pkgctl_resolver_fd() and prints one line
 * per task, so the test can check what a C host sees.
 *
 *   resolver_host STORE UPSTREAM get URL...     each URL in turn: "URL status=S bytes=N type=T result=R"
 *   resolver_host STORE UPSTREAM offline URL    the same, with the resolver offline
 *   resolver_host STORE UPSTREAM storm N URL    N tasks for URL stopped mid-body, half by the
 *                                               dispatching thread, half by another thread;
 *                                               then dispatches 500 ms more: "late=L ..." (L must be 0);
 *                                               nothing is reported consumed, so each task stalls at its
 *                                               64 KiB window and none ends before its stop
 *   resolver_host STORE UPSTREAM abandon N URL  N tasks left running at pkgctl_resolver_destroy(), which
 *                                               stops them and frees their handles: "abandoned=N"
 *   resolver_host STORE UPSTREAM launch PAGE URL...
 *                                               PAGE as a navigation ("PAGE status=S bytes=N"), then each URL as get does,
 *                                               offline (a trial by launches counts offline misses)
 *   resolver_host STORE UPSTREAM launch-report PAGE URL... DETAIL
 *                                               the same, then the host's report of the launch: "report=R"
 *   resolver_host STORE UPSTREAM plan|offline-plan (ACCEPT URL)...
 *                                               pkgctl_resolver_plan() of each URL with that Accept, no
 *                                               task: "URL source=S class=C" (their names), online or offline
 *   resolver_host STORE UPSTREAM sizes          the struct_size rules: pkgctl_resolver_options of ABI 0's
 *                                               size, too small, larger with a zero or a set tail
 *                                               ("options SIZE ok|refused: MESSAGE"); pkgctl_resolver_plan()
 *                                               and pkgctl_resolver_counters_get() into a struct_size that
 *                                               covers only some fields, guard bytes after it
 */
#include <pkgctl/resolver.h>
#include <poll.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct {
    int status;
    size_t bytes;
    unsigned checksum;
    char type[64];
    int ended;
    int result;
    char message[256];
    atomic_int stopped; /* set once pkgctl_task_stop() returned */
    atomic_int late;    /* callbacks after that: must stay 0 */
} task_state;

static void on_response(void *user, int32_t status, const pkgctl_header *headers, size_t count) {
    task_state *state = user;
    if (atomic_load(&state->stopped)) atomic_fetch_add(&state->late, 1);
    state->status = status;
    for (size_t i = 0; i < count; i++) {
        if (strcasecmp(headers[i].name, "Content-Type") == 0) {
            snprintf(state->type, sizeof state->type, "%s", headers[i].value);
        }
    }
}

static void on_data(void *user, const void *bytes, size_t length) {
    task_state *state = user;
    if (atomic_load(&state->stopped)) atomic_fetch_add(&state->late, 1);
    /* Every byte is read, so a sanitized build sees a pointer that is not valid for `length`. */
    const unsigned char *body = bytes;
    for (size_t i = 0; i < length; i++) state->checksum += body[i];
    state->bytes += length;
}

static void on_end(void *user, int32_t result, const char *message) {
    task_state *state = user;
    if (atomic_load(&state->stopped)) atomic_fetch_add(&state->late, 1);
    state->ended = 1;
    state->result = result;
    snprintf(state->message, sizeof state->message, "%s", message ? message : "");
}

static const pkgctl_task_callbacks callbacks = {on_response, on_data, on_end};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Waits up to `ms` for callbacks and runs them. */
static size_t pump(pkgctl_resolver *resolver, int ms) {
    struct pollfd ready = {.fd = pkgctl_resolver_fd(resolver), .events = POLLIN};
    if (poll(&ready, 1, ms) <= 0) return 0;
    return pkgctl_resolver_dispatch(resolver);
}

static pkgctl_resolver *make(const char *store, const char *upstream, int offline, int explicit_consumption) {
    pkgctl_resolver_options options;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.store_root = store;
    options.upstream = upstream;
    options.offline = offline;
    /* The storm reports no bytes consumed: no task can get past its window, so none ends before its stop. */
    options.explicit_consumption = explicit_consumption;
    options.window = 64 * 1024;
    char error[256];
    pkgctl_resolver *resolver = pkgctl_resolver_create(&options, error, sizeof error);
    if (!resolver) fprintf(stderr, "create: %s\n", error);
    return resolver;
}

static int get(pkgctl_resolver *resolver, int count, char **urls) {
    for (int i = 0; i < count; i++) {
        task_state state;
        memset(&state, 0, sizeof state);
        snprintf(state.type, sizeof state.type, "-");
        pkgctl_header accept = {"Accept", "*/*"};
        pkgctl_task *task = pkgctl_task_start(resolver, "GET", urls[i], &accept, 1, NULL, 0, &callbacks, &state);
        double deadline = now() + 20;
        while (!state.ended && now() < deadline) pump(resolver, 100);
        pkgctl_task_stop(task);
        printf("%s status=%d bytes=%zu type=%s result=%d%s%s\n", urls[i], state.status, state.bytes, state.type,
               state.result, state.message[0] ? " message=" : "", state.message);
    }
    return 0;
}

typedef struct {
    pkgctl_task **tasks;
    task_state *states;
    int from, to;
} stopper_args;

static void *stop_some(void *argument) {
    stopper_args *args = argument;
    for (int i = args->from; i < args->to; i++) {
        pkgctl_task_stop(args->tasks[i]);
        atomic_store(&args->states[i].stopped, 1);
    }
    return NULL;
}

static int storm(pkgctl_resolver *resolver, int count, const char *url) {
    pkgctl_task **tasks = calloc(count, sizeof *tasks);
    task_state *states = calloc(count, sizeof *states);
    for (int i = 0; i < count; i++) {
        tasks[i] = pkgctl_task_start(resolver, "GET", url, NULL, 0, NULL, 0, &callbacks, &states[i]);
    }
    /* Until every task has some body, or 10 s. */
    double deadline = now() + 10;
    for (int started = 0; started < count && now() < deadline;) {
        pump(resolver, 50);
        started = 0;
        for (int i = 0; i < count; i++) started += states[i].bytes > 0 || states[i].ended;
    }
    /* The second half from another thread, while this one dispatches; the first half here. */
    stopper_args args = {tasks, states, count / 2, count};
    pthread_t thread;
    pthread_create(&thread, NULL, stop_some, &args);
    for (int i = 0; i < count / 2; i++) {
        pump(resolver, 0);
        pkgctl_task_stop(tasks[i]);
        atomic_store(&states[i].stopped, 1);
    }
    pthread_join(thread, NULL);
    for (double until = now() + 0.5; now() < until;) pump(resolver, 20);
    int late = 0, ended = 0, bodies = 0;
    const char *message = "";
    for (int i = 0; i < count; i++) {
        late += atomic_load(&states[i].late);
        ended += states[i].ended;
        bodies += states[i].bytes > 0;
        if (states[i].ended && states[i].message[0]) message = states[i].message;
    }
    pkgctl_resolver_counters counters;
    pkgctl_resolver_get_counters(resolver, &counters);
    printf("late=%d tasks=%d with_body=%d ended_before_stop=%d started=%llu stopped=%llu%s%s\n", late, count, bodies, ended,
           (unsigned long long)counters.tasks_started, (unsigned long long)counters.tasks_stopped,
           message[0] ? " last_error=" : "", message);
    free(tasks);
    free(states);
    return late == 0 ? 0 : 1;
}

/* Starts `count` tasks, lets some body arrive, and destroys the resolver without stopping them. */
static int abandon(pkgctl_resolver *resolver, int count, const char *url) {
    task_state *states = calloc(count, sizeof *states);
    for (int i = 0; i < count; i++) pkgctl_task_start(resolver, "GET", url, NULL, 0, NULL, 0, &callbacks, &states[i]);
    for (double until = now() + 0.3; now() < until;) pump(resolver, 20);
    pkgctl_resolver_destroy(resolver);
    printf("abandoned=%d\n", count);
    free(states);
    return 0;
}

/* One launch as a web view makes it: PAGE as a navigation (Accept text/html; "PAGE status=S bytes=N"), then each URL; then,
   with a DETAIL, pkgctl_resolver_report_launch_problem() of PAGE: "report=R" (1 taken, 0 not). */
static int launch(pkgctl_resolver *resolver, const char *page, int count, char **urls, const char *detail) {
    task_state state;
    memset(&state, 0, sizeof state);
    pkgctl_header accept = {"Accept", "text/html,application/xhtml+xml,*/*;q=0.8"};
    pkgctl_task *task = pkgctl_task_start(resolver, "GET", page, &accept, 1, NULL, 0, &callbacks, &state);
    for (double deadline = now() + 20; !state.ended && now() < deadline;) pump(resolver, 100);
    pkgctl_task_stop(task);
    printf("%s status=%d bytes=%zu\n", page, state.status, state.bytes);
    get(resolver, count, urls);
    if (detail) printf("report=%d\n", (int)pkgctl_resolver_report_launch_problem(resolver, page, detail));
    return 0;
}

/* pkgctl_resolver_plan() of each ACCEPT URL pair; no task starts. */
static int plan(pkgctl_resolver *resolver, int count, char **pairs) {
    for (int i = 0; i + 1 < count; i += 2) {
        pkgctl_header accept = {"Accept", pairs[i]};
        pkgctl_request_plan answer = {.struct_size = sizeof answer};
        int32_t result = pkgctl_resolver_plan(resolver, "GET", pairs[i + 1], &accept, 1, &answer);
        printf("%s source=%s class=%s result=%d\n", pairs[i + 1], pkgctl_source_name(answer.source),
               pkgctl_resource_class_name(answer.resource_class), result);
    }
    return 0;
}

/* Creates a resolver from `size` bytes of options: ABI 0's fields, then `tail` (a newer header's
 * fields) set to `tail_byte`. Prints "options SIZE ok" or "options SIZE refused: MESSAGE". */
static void create_sized(const char *store, uint32_t size, unsigned char tail_byte) {
    unsigned char buffer[sizeof(pkgctl_resolver_options) + 16];
    memset(buffer, 0, sizeof buffer);
    pkgctl_resolver_options options;
    memset(&options, 0, sizeof options);
    options.struct_size = size;
    options.store_root = store;
    memcpy(buffer, &options, sizeof options);
    buffer[sizeof options + 8] = tail_byte;
    char error[256] = "";
    pkgctl_resolver *resolver = pkgctl_resolver_create((const pkgctl_resolver_options *)buffer, error, sizeof error);
    if (resolver) printf("options %u ok\n", size);
    else printf("options %u refused: %s\n", size, error);
    pkgctl_resolver_destroy(resolver);
}

/* Whether the `count` bytes at `bytes` are all `value`. */
static int all(const unsigned char *bytes, size_t count, unsigned char value) {
    for (size_t i = 0; i < count; i++) {
        if (bytes[i] != value) return 0;
    }
    return 1;
}

static int sizes(pkgctl_resolver *resolver, const char *store, const char *url) {
    /* ABI 0's pkgctl_resolver_options: up to and with `window`. */
    uint32_t abi0 = offsetof(pkgctl_resolver_options, window) + sizeof(uint64_t);
    create_sized(store, abi0, 0);
    create_sized(store, abi0 - 8, 0);
    create_sized(store, 4, 0);
    create_sized(store, sizeof(pkgctl_resolver_options) + 16, 0);
    create_sized(store, sizeof(pkgctl_resolver_options) + 16, 1);
    create_sized(store, 1 << 20, 0);

    /* A task, so that the counters are not all zero. */
    task_state state;
    memset(&state, 0, sizeof state);
    pkgctl_task *task = pkgctl_task_start(resolver, "GET", url, NULL, 0, NULL, 0, &callbacks, &state);
    for (double deadline = now() + 20; !state.ended && now() < deadline;) pump(resolver, 100);
    pkgctl_task_stop(task);

    /* Counters into a struct_size that ends inside tasks_failed: started and succeeded only. */
    union {
        pkgctl_counters counters;
        unsigned char bytes[sizeof(pkgctl_counters) + 16];
    } guarded;
    memset(&guarded, 0xAB, sizeof guarded);
    size_t partial = offsetof(pkgctl_counters, tasks_failed) + 4;
    guarded.counters.struct_size = (uint32_t)partial;
    size_t written = pkgctl_resolver_counters_get(resolver, &guarded.counters);
    printf("counters struct_size=%zu returned=%zu started=%llu succeeded=%llu untouched_after=%s\n", partial, written,
           (unsigned long long)guarded.counters.tasks_started, (unsigned long long)guarded.counters.tasks_succeeded,
           all(guarded.bytes + written, sizeof guarded - written, 0xAB) ? "yes" : "no");
    /* The whole struct, and one larger than it (a newer header): the fields this library knows. */
    memset(&guarded, 0xAB, sizeof guarded);
    guarded.counters.struct_size = sizeof guarded;
    written = pkgctl_resolver_counters_get(resolver, &guarded.counters);
    pkgctl_resolver_counters old;
    pkgctl_resolver_get_counters(resolver, &old);
    printf("counters struct_size=%zu returned=%zu same_as_abi0=%s untouched_after=%s\n", sizeof guarded, written,
           guarded.counters.tasks_started == old.tasks_started && guarded.counters.tasks_succeeded == old.tasks_succeeded
               && guarded.counters.tasks_failed == old.tasks_failed && guarded.counters.body_bytes == old.body_bytes
               && guarded.counters.callbacks == old.callbacks ? "yes" : "no",
           all(guarded.bytes + written, sizeof guarded - written, 0xAB) ? "yes" : "no");
    memset(&guarded, 0xAB, sizeof guarded);
    guarded.counters.struct_size = 8;
    written = pkgctl_resolver_counters_get(resolver, &guarded.counters);
    printf("counters struct_size=8 returned=%zu untouched_after=%s\n", written,
           all(guarded.bytes + 4, sizeof guarded - 4, 0xAB) ? "yes" : "no");

    /* A plan into ABI 0.1's size plus guard bytes, and into a struct_size under it (refused, nothing written). */
    union {
        pkgctl_request_plan plan;
        unsigned char bytes[sizeof(pkgctl_request_plan) + 16];
    } plan_guarded;
    memset(&plan_guarded, 0xAB, sizeof plan_guarded);
    plan_guarded.plan.struct_size = sizeof plan_guarded.plan;
    int32_t result = pkgctl_resolver_plan(resolver, "GET", url, NULL, 0, &plan_guarded.plan);
    printf("plan struct_size=%zu result=%d source=%s untouched_after=%s\n", sizeof plan_guarded.plan, result,
           pkgctl_source_name(plan_guarded.plan.source),
           all(plan_guarded.bytes + sizeof plan_guarded.plan, 16, 0xAB) ? "yes" : "no");
    memset(&plan_guarded, 0xAB, sizeof plan_guarded);
    plan_guarded.plan.struct_size = offsetof(pkgctl_request_plan, resource_class);
    result = pkgctl_resolver_plan(resolver, "GET", url, NULL, 0, &plan_guarded.plan);
    printf("plan struct_size=%zu result=%d untouched_after=%s\n", offsetof(pkgctl_request_plan, resource_class), result,
           all(plan_guarded.bytes + 4, sizeof plan_guarded - 4, 0xAB) ? "yes" : "no");
    printf("names %s %s %s\n", pkgctl_source_name(0), pkgctl_resource_class_name(99), pkgctl_resource_class_name(PKGCTL_CLASS_IMAGE));
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: resolver_host STORE UPSTREAM get|offline|launch|launch-report|storm|abandon|plan|offline-plan|sizes ...\n");
        return 64;
    }
    int offline = strcmp(argv[3], "offline") == 0 || strcmp(argv[3], "offline-plan") == 0
                  || strncmp(argv[3], "launch", 6) == 0;
    int explicit_consumption = strcmp(argv[3], "storm") == 0 || strcmp(argv[3], "abandon") == 0;
    pkgctl_resolver *resolver = make(argv[1], argv[2], offline, explicit_consumption);
    if (!resolver) return 1;
    int status;
    if (strcmp(argv[3], "abandon") == 0 && argc >= 6) {
        return abandon(resolver, atoi(argv[4]), argv[5]);
    } else if (strcmp(argv[3], "plan") == 0 || strcmp(argv[3], "offline-plan") == 0) {
        status = plan(resolver, argc - 4, argv + 4);
    } else if (strcmp(argv[3], "sizes") == 0 && argc >= 5) {
        status = sizes(resolver, argv[1], argv[4]);
    } else if (strcmp(argv[3], "launch") == 0 || strcmp(argv[3], "launch-report") == 0) {
        int reports = strcmp(argv[3], "launch-report") == 0;
        status = launch(resolver, argv[4], argc - 5 - reports, argv + 5, reports ? argv[argc - 1] : NULL);
    } else if (strcmp(argv[3], "storm") == 0 && argc >= 6) {
        status = storm(resolver, atoi(argv[4]), argv[5]);
    } else {
        status = get(resolver, argc - 4, argv + 4);
    }
    pkgctl_resolver_counters counters;
    pkgctl_resolver_get_counters(resolver, &counters);
    printf("counters started=%llu succeeded=%llu failed=%llu stopped=%llu body_bytes=%llu\n",
           (unsigned long long)counters.tasks_started, (unsigned long long)counters.tasks_succeeded,
           (unsigned long long)counters.tasks_failed, (unsigned long long)counters.tasks_stopped,
           (unsigned long long)counters.body_bytes);
    pkgctl_resolver_destroy(resolver);
    return status;
}
