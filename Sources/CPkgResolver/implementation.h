/*
 * The Swift side of the C ABI (Sources/PkgResolverC/ResolverABI.swift, @_cdecl): one
 * function per function of pkgctl/resolver.h, with the same parameters. Not installed and
 * not exported (resolver.map keeps these names local): hosts call the C functions of abi.c.
 */
#ifndef PKGCTL_RESOLVER_IMPLEMENTATION_H
#define PKGCTL_RESOLVER_IMPLEMENTATION_H

#include "pkgctl/resolver.h"

pkgctl_resolver *pkgctl_swift_resolver_create(const pkgctl_resolver_options *options, char *error, size_t error_size);
void pkgctl_swift_resolver_destroy(pkgctl_resolver *resolver);
int pkgctl_swift_resolver_fd(const pkgctl_resolver *resolver);
size_t pkgctl_swift_resolver_dispatch(pkgctl_resolver *resolver);
pkgctl_task *pkgctl_swift_task_start(pkgctl_resolver *resolver, const char *method, const char *url,
                                     const pkgctl_header *headers, size_t header_count,
                                     const void *body, size_t body_length,
                                     const pkgctl_task_callbacks *callbacks, void *user);
void pkgctl_swift_task_consumed(pkgctl_task *task, size_t length);
void pkgctl_swift_task_stop(pkgctl_task *task);
void pkgctl_swift_resolver_get_counters(const pkgctl_resolver *resolver, pkgctl_resolver_counters *counters);
int32_t pkgctl_swift_resolver_plan(const pkgctl_resolver *resolver, const char *method, const char *url,
                                   const pkgctl_header *headers, size_t header_count, pkgctl_request_plan *plan);
int32_t pkgctl_swift_resolver_report_launch_problem(pkgctl_resolver *resolver, const char *url, const char *detail);
const char *pkgctl_swift_source_name(int32_t source);
const char *pkgctl_swift_resource_class_name(int32_t resource_class);
size_t pkgctl_swift_resolver_counters_get(const pkgctl_resolver *resolver, pkgctl_counters *counters);

#endif
