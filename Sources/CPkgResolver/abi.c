/*
 * The exported functions of libpkgctl-resolver: each forwards to its Swift implementation
 * (implementation.h). They are C, compiled against pkgctl/resolver.h, so the library's debug
 * information describes the ABI in C terms (every parameter type and struct layout), which is
 * what abidiff compares (scripts/abi-check); Swift's own debug information would give it only
 * the symbol names. This target is also the module through which the Swift side imports the
 * header, so both halves are compiled against the declarations C hosts use.
 */
#include "pkgctl/resolver.h"
#include "implementation.h"

pkgctl_resolver *pkgctl_resolver_create(const pkgctl_resolver_options *options, char *error, size_t error_size) {
    return pkgctl_swift_resolver_create(options, error, error_size);
}

void pkgctl_resolver_destroy(pkgctl_resolver *resolver) {
    pkgctl_swift_resolver_destroy(resolver);
}

int pkgctl_resolver_fd(const pkgctl_resolver *resolver) {
    return pkgctl_swift_resolver_fd(resolver);
}

size_t pkgctl_resolver_dispatch(pkgctl_resolver *resolver) {
    return pkgctl_swift_resolver_dispatch(resolver);
}

pkgctl_task *pkgctl_task_start(pkgctl_resolver *resolver, const char *method, const char *url,
                               const pkgctl_header *headers, size_t header_count,
                               const void *body, size_t body_length,
                               const pkgctl_task_callbacks *callbacks, void *user) {
    return pkgctl_swift_task_start(resolver, method, url, headers, header_count, body, body_length, callbacks, user);
}

void pkgctl_task_consumed(pkgctl_task *task, size_t length) {
    pkgctl_swift_task_consumed(task, length);
}

void pkgctl_task_stop(pkgctl_task *task) {
    pkgctl_swift_task_stop(task);
}

void pkgctl_resolver_get_counters(const pkgctl_resolver *resolver, pkgctl_resolver_counters *counters) {
    pkgctl_swift_resolver_get_counters(resolver, counters);
}

/* Since 0.1 (PKGCTL_RESOLVER_0.1). */

int32_t pkgctl_resolver_plan(const pkgctl_resolver *resolver, const char *method, const char *url,
                             const pkgctl_header *headers, size_t header_count, pkgctl_request_plan *plan) {
    return pkgctl_swift_resolver_plan(resolver, method, url, headers, header_count, plan);
}

const char *pkgctl_source_name(int32_t source) {
    return pkgctl_swift_source_name(source);
}

const char *pkgctl_resource_class_name(int32_t resource_class) {
    return pkgctl_swift_resource_class_name(resource_class);
}

size_t pkgctl_resolver_counters_get(const pkgctl_resolver *resolver, pkgctl_counters *counters) {
    return pkgctl_swift_resolver_counters_get(resolver, counters);
}

/* Since 0.2 (PKGCTL_RESOLVER_0.2). */

int32_t pkgctl_resolver_report_launch_problem(pkgctl_resolver *resolver, const char *url, const char *detail) {
    return pkgctl_swift_resolver_report_launch_problem(resolver, url, detail);
}
