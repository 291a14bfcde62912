//! pkgctl's offline-package resolver for Rust hosts (Tauri/wry, GTK apps), a safe wrapper over
//! its C ABI (`pkgctl/resolver.h`, linked as `libpkgctl-resolver`).
//!
//! Callbacks run on the thread that calls [`Resolver::dispatch`], never on the resolver's own
//! threads; [`Resolver::fd`] is readable while some wait, so a main loop can watch it. After
//! [`Task::stop`] returns, on any thread, no callback of that task runs again.
//!
//! ```no_run
//! use pkgctl_resolver::{End, Handler, Options, Resolver};
//! struct Print;
//! impl Handler for Print {
//!     fn response(&mut self, status: i32, _headers: &[(String, String)]) { println!("{status}") }
//!     fn data(&mut self, bytes: &[u8]) { println!("{} bytes", bytes.len()) }
//!     fn end(&mut self, end: End) { println!("{end:?}") }
//! }
//! let resolver = Resolver::new(&Options::store("/var/lib/pkgctl")).unwrap();
//! let task = resolver.start("GET", "app://www.example.com/app/", &[], &[], Box::new(Print));
//! while resolver.wait(std::time::Duration::from_secs(10)) { resolver.dispatch(); }
//! task.stop();
//! ```

pub mod ffi;

use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::time::Duration;

/// How a task ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// The body is complete.
    Ok,
    /// The request was refused (a bad URL or path).
    Invalid(String),
    /// The origin could not be reached, or the transfer was cut.
    Transfer(String),
    /// Offline, and nothing installed or cached has it.
    Offline(String),
    /// Anything else.
    Other(String),
}

/// Where a task's callbacks go; called on the dispatching thread, one at a time.
pub trait Handler: Send {
    /// The response head, once (not at all when the task fails first).
    fn response(&mut self, _status: i32, _headers: &[(String, String)]) {}
    /// A chunk of the body.
    fn data(&mut self, _bytes: &[u8]) {}
    /// The end, exactly once (unless the task is stopped first).
    fn end(&mut self, _end: End) {}
}

/// Settings of [`Resolver::new`].
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The store's root directory (as `pkgctl update --root`).
    pub store_root: String,
    /// Base URL replacing `https://HOST` for origin fallbacks.
    pub upstream: Option<String>,
    /// PEM file of CA certificates for the origin's TLS.
    pub ca_file: Option<String>,
    /// Never ask the origin.
    pub offline: bool,
    /// Body bytes count as consumed only when reported with [`Task::consumed`].
    pub explicit_consumption: bool,
    /// Body bytes a task may have delivered and not consumed; 0: 1 MiB.
    pub window: u64,
}

impl Options {
    /// Defaults over the store at `root`.
    pub fn store(root: &str) -> Options {
        Options { store_root: root.to_string(), ..Options::default() }
    }
}

/// What [`Resolver::plan`] says: the library's names of where a request would be answered
/// from ("package", "overlay", "origin", "offline", "refused") and of its class ("html",
/// "script", "style", "image", "other").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub source: &'static str,
    pub resource_class: &'static str,
}

/// A resolver over one store. Dispatch on one thread; tasks may be stopped from any.
pub struct Resolver {
    raw: *mut ffi::pkgctl_resolver,
}

// The handle may move to the thread that dispatches; it is not shared (no Sync), so
// dispatches never overlap.
unsafe impl Send for Resolver {}

/// One request in flight; stopped (and its handler dropped) by [`Task::stop`] or when dropped.
pub struct Task<'r> {
    raw: *mut ffi::pkgctl_task,
    handler: *mut Box<dyn Handler>,
    _resolver: PhantomData<fn() -> &'r ()>,
}

// Stopping is safe from any thread (the ABI's guarantee), and the handler is Send.
unsafe impl Send for Task<'_> {}

impl Resolver {
    /// Creates a resolver, or says in one line why it cannot.
    pub fn new(options: &Options) -> Result<Resolver, String> {
        let text = |value: &str| CString::new(value).map_err(|_| format!("{value:?} holds a NUL byte"));
        let root = text(&options.store_root)?;
        let upstream = options.upstream.as_deref().map(text).transpose()?;
        let ca_file = options.ca_file.as_deref().map(text).transpose()?;
        let raw_options = ffi::pkgctl_resolver_options {
            struct_size: std::mem::size_of::<ffi::pkgctl_resolver_options>() as u32,
            store_root: root.as_ptr(),
            upstream: upstream.as_ref().map_or(ptr::null(), |s| s.as_ptr()),
            ca_file: ca_file.as_ref().map_or(ptr::null(), |s| s.as_ptr()),
            offline: options.offline as i32,
            explicit_consumption: options.explicit_consumption as i32,
            window: options.window,
        };
        let mut error = [0 as c_char; 512];
        let raw = unsafe { ffi::pkgctl_resolver_create(&raw_options, error.as_mut_ptr(), error.len()) };
        if raw.is_null() {
            return Err(unsafe { CStr::from_ptr(error.as_ptr()) }.to_string_lossy().into_owned());
        }
        Ok(Resolver { raw })
    }

    /// The descriptor that is readable while callbacks wait.
    pub fn fd(&self) -> i32 {
        unsafe { ffi::pkgctl_resolver_fd(self.raw) }
    }

    /// Waits up to `timeout` for callbacks; true when some wait.
    pub fn wait(&self, timeout: Duration) -> bool {
        let mut entry = ffi::pollfd { fd: self.fd(), events: ffi::POLLIN, revents: 0 };
        unsafe { ffi::poll(&mut entry, 1, timeout.as_millis().min(i32::MAX as u128) as i32) > 0 }
    }

    /// Runs the waiting callbacks on this thread; returns how many ran.
    pub fn dispatch(&self) -> usize {
        unsafe { ffi::pkgctl_resolver_dispatch(self.raw) }
    }

    /// Starts a request (`url` absolute: `app://www.example.com/app/`); `handler` gets its callbacks.
    pub fn start<'r>(&'r self, method: &str, url: &str, headers: &[(&str, &str)], body: &[u8],
                     handler: Box<dyn Handler>) -> Task<'r> {
        let owned = |value: &str| CString::new(value.replace('\0', "")).unwrap_or_default();
        let (method, url) = (owned(method), owned(url));
        let fields: Vec<(CString, CString)> = headers.iter().map(|(n, v)| (owned(n), owned(v))).collect();
        let raw_fields: Vec<ffi::pkgctl_header> =
            fields.iter().map(|(n, v)| ffi::pkgctl_header { name: n.as_ptr(), value: v.as_ptr() }).collect();
        let callbacks = ffi::pkgctl_task_callbacks { response: Some(on_response), data: Some(on_data), end: Some(on_end) };
        let handler = Box::into_raw(Box::new(handler));
        let raw = unsafe {
            ffi::pkgctl_task_start(self.raw, method.as_ptr(), url.as_ptr(), raw_fields.as_ptr(), raw_fields.len(),
                                   body.as_ptr() as *const c_void, body.len(), &callbacks, handler as *mut c_void)
        };
        Task { raw, handler, _resolver: PhantomData }
    }

    /// Where a request would be answered from and its class, without a task (`pkgctl_resolver_plan`).
    pub fn plan(&self, method: &str, url: &str, headers: &[(&str, &str)]) -> Plan {
        let owned = |value: &str| CString::new(value.replace('\0', "")).unwrap_or_default();
        let (method, url) = (owned(method), owned(url));
        let fields: Vec<(CString, CString)> = headers.iter().map(|(n, v)| (owned(n), owned(v))).collect();
        let raw_fields: Vec<ffi::pkgctl_header> =
            fields.iter().map(|(n, v)| ffi::pkgctl_header { name: n.as_ptr(), value: v.as_ptr() }).collect();
        let mut plan = ffi::pkgctl_request_plan {
            struct_size: std::mem::size_of::<ffi::pkgctl_request_plan>() as u32,
            ..Default::default()
        };
        unsafe {
            ffi::pkgctl_resolver_plan(self.raw, method.as_ptr(), url.as_ptr(), raw_fields.as_ptr(), raw_fields.len(),
                                      &mut plan);
        }
        // The names are the library's static strings.
        let name = |raw: *const c_char| unsafe { CStr::from_ptr(raw) }.to_str().unwrap_or("unknown");
        Plan {
            source: name(unsafe { ffi::pkgctl_source_name(plan.source) }),
            resource_class: name(unsafe { ffi::pkgctl_resource_class_name(plan.resource_class) }),
        }
    }

    /// The resolver's counters (`pkgctl_resolver_counters_get`).
    pub fn counters(&self) -> ffi::pkgctl_counters {
        let mut counters = ffi::pkgctl_counters {
            struct_size: std::mem::size_of::<ffi::pkgctl_counters>() as u32,
            ..Default::default()
        };
        unsafe { ffi::pkgctl_resolver_counters_get(self.raw, &mut counters) };
        counters
    }
}

impl Drop for Resolver {
    fn drop(&mut self) {
        unsafe { ffi::pkgctl_resolver_destroy(self.raw) }
    }
}

impl Task<'_> {
    /// Reports `length` body bytes used (with `explicit_consumption`).
    pub fn consumed(&self, length: usize) {
        unsafe { ffi::pkgctl_task_consumed(self.raw, length) }
    }

    /// Stops the task unless it ended; no callback of it runs after this returns.
    pub fn stop(self) {}
}

impl Drop for Task<'_> {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            unsafe { ffi::pkgctl_task_stop(self.raw) };
        }
        // No callback can use the handler now.
        drop(unsafe { Box::from_raw(self.handler) });
    }
}

/// Runs `body` on the task's handler; a panic must not unwind into C, so it aborts.
unsafe fn with_handler(user: *mut c_void, body: impl FnOnce(&mut dyn Handler)) {
    let handler = &mut **(user as *mut Box<dyn Handler>);
    if catch_unwind(AssertUnwindSafe(|| body(handler))).is_err() {
        std::process::abort();
    }
}

unsafe fn text(pointer: *const c_char) -> String {
    if pointer.is_null() { String::new() } else { CStr::from_ptr(pointer).to_string_lossy().into_owned() }
}

unsafe extern "C" fn on_response(user: *mut c_void, status: i32, headers: *const ffi::pkgctl_header, count: usize) {
    let fields: Vec<(String, String)> = (0..count).map(|i| {
        let field = &*headers.add(i);
        (text(field.name), text(field.value))
    }).collect();
    with_handler(user, |handler| handler.response(status, &fields));
}

unsafe extern "C" fn on_data(user: *mut c_void, bytes: *const c_void, length: usize) {
    let slice = if length == 0 { &[][..] } else { std::slice::from_raw_parts(bytes as *const u8, length) };
    with_handler(user, |handler| handler.data(slice));
}

unsafe extern "C" fn on_end(user: *mut c_void, result: i32, message: *const c_char) {
    let message = text(message);
    let end = match result {
        ffi::PKGCTL_OK => End::Ok,
        ffi::PKGCTL_ERR_INVALID => End::Invalid(message),
        ffi::PKGCTL_ERR_TRANSFER => End::Transfer(message),
        ffi::PKGCTL_ERR_OFFLINE => End::Offline(message),
        _ => End::Other(message),
    };
    with_handler(user, |handler| handler.end(end));
}
