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
 */
#include <pkgctl/resolver.h>
#include <poll.h>
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

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: resolver_host STORE UPSTREAM get|offline|storm ...\n");
        return 64;
    }
    int offline = strcmp(argv[3], "offline") == 0;
    pkgctl_resolver *resolver = make(argv[1], argv[2], offline, strcmp(argv[3], "get") != 0 && !offline);
    if (!resolver) return 1;
    int status;
    if (strcmp(argv[3], "abandon") == 0 && argc >= 6) {
        return abandon(resolver, atoi(argv[4]), argv[5]);
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
