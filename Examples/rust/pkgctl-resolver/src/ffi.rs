//! The declarations of `pkgctl/resolver.h`, as they are there.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

#[repr(C)]
pub struct pkgctl_resolver {
    _opaque: [u8; 0],
}

#[repr(C)]
pub struct pkgctl_task {
    _opaque: [u8; 0],
}

#[repr(C)]
pub struct pkgctl_header {
    pub name: *const c_char,
    pub value: *const c_char,
}

pub const PKGCTL_OK: i32 = 0;
pub const PKGCTL_ERR_INVALID: i32 = 1;
pub const PKGCTL_ERR_TRANSFER: i32 = 2;
pub const PKGCTL_ERR_OFFLINE: i32 = 3;
pub const PKGCTL_ERR_OTHER: i32 = 4;

#[repr(C)]
pub struct pkgctl_resolver_options {
    pub struct_size: u32,
    pub store_root: *const c_char,
    pub upstream: *const c_char,
    pub ca_file: *const c_char,
    pub offline: i32,
    pub explicit_consumption: i32,
    pub window: u64,
}

#[repr(C)]
pub struct pkgctl_task_callbacks {
    pub response: Option<unsafe extern "C" fn(*mut c_void, i32, *const pkgctl_header, usize)>,
    pub data: Option<unsafe extern "C" fn(*mut c_void, *const c_void, usize)>,
    pub end: Option<unsafe extern "C" fn(*mut c_void, i32, *const c_char)>,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pkgctl_resolver_counters {
    pub tasks_started: u64,
    pub tasks_succeeded: u64,
    pub tasks_failed: u64,
    pub tasks_stopped: u64,
    pub body_bytes: u64,
    pub callbacks: u64,
}

// Since ABI 0.1 (version node PKGCTL_RESOLVER_0.1).

pub const PKGCTL_SOURCE_PACKAGE: i32 = 1;
pub const PKGCTL_SOURCE_OVERLAY: i32 = 2;
pub const PKGCTL_SOURCE_ORIGIN: i32 = 3;
pub const PKGCTL_SOURCE_OFFLINE: i32 = 4;
pub const PKGCTL_SOURCE_REFUSED: i32 = 5;

pub const PKGCTL_CLASS_HTML: i32 = 1;
pub const PKGCTL_CLASS_SCRIPT: i32 = 2;
pub const PKGCTL_CLASS_STYLE: i32 = 3;
pub const PKGCTL_CLASS_IMAGE: i32 = 4;
pub const PKGCTL_CLASS_OTHER: i32 = 5;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pkgctl_request_plan {
    pub struct_size: u32,
    pub source: i32,
    pub resource_class: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct pkgctl_counters {
    pub struct_size: u32,
    pub tasks_started: u64,
    pub tasks_succeeded: u64,
    pub tasks_failed: u64,
    pub tasks_stopped: u64,
    pub body_bytes: u64,
    pub callbacks: u64,
}

extern "C" {
    pub fn pkgctl_resolver_create(
        options: *const pkgctl_resolver_options,
        error: *mut c_char,
        error_size: usize,
    ) -> *mut pkgctl_resolver;
    pub fn pkgctl_resolver_destroy(resolver: *mut pkgctl_resolver);
    pub fn pkgctl_resolver_fd(resolver: *const pkgctl_resolver) -> c_int;
    pub fn pkgctl_resolver_dispatch(resolver: *mut pkgctl_resolver) -> usize;
    pub fn pkgctl_task_start(
        resolver: *mut pkgctl_resolver,
        method: *const c_char,
        url: *const c_char,
        headers: *const pkgctl_header,
        header_count: usize,
        body: *const c_void,
        body_length: usize,
        callbacks: *const pkgctl_task_callbacks,
        user: *mut c_void,
    ) -> *mut pkgctl_task;
    pub fn pkgctl_task_consumed(task: *mut pkgctl_task, length: usize);
    pub fn pkgctl_task_stop(task: *mut pkgctl_task);
    pub fn pkgctl_resolver_get_counters(resolver: *const pkgctl_resolver, counters: *mut pkgctl_resolver_counters);
    pub fn pkgctl_resolver_plan(
        resolver: *const pkgctl_resolver,
        method: *const c_char,
        url: *const c_char,
        headers: *const pkgctl_header,
        header_count: usize,
        plan: *mut pkgctl_request_plan,
    ) -> i32;
    pub fn pkgctl_source_name(source: i32) -> *const c_char;
    pub fn pkgctl_resource_class_name(resource_class: i32) -> *const c_char;
    pub fn pkgctl_resolver_counters_get(resolver: *const pkgctl_resolver, counters: *mut pkgctl_counters) -> usize;
}

/// poll(2)'s descriptor entry, for `Resolver::wait` (libc, which every Rust program links).
#[repr(C)]
pub struct pollfd {
    pub fd: c_int,
    pub events: i16,
    pub revents: i16,
}

pub const POLLIN: i16 = 1;

extern "C" {
    pub fn poll(fds: *mut pollfd, count: u64, timeout: c_int) -> c_int;
}
