//! The safe wrapper against the real resolver. `ResolverCABITests` runs `cargo test --offline`
//! with PKGCTL_TEST_STORE (a store whose demo package routes www.example.com/app),
//! PKGCTL_TEST_UPSTREAM (nginx serving /app/late.js and the 8 MiB /app/big.bin) and the
//! library's folder set, and checks nginx's log afterwards.
use pkgctl_resolver::{End, Handler, Options, Resolver};
use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn options() -> Options {
    Options {
        upstream: Some(std::env::var("PKGCTL_TEST_UPSTREAM").expect("PKGCTL_TEST_UPSTREAM")),
        ..Options::store(&std::env::var("PKGCTL_TEST_STORE").expect("PKGCTL_TEST_STORE"))
    }
}

#[derive(Default)]
struct Outcome {
    status: Option<i32>,
    body: Vec<u8>,
    end: Option<End>,
}

struct Collect(Arc<Mutex<Outcome>>);

impl Handler for Collect {
    fn response(&mut self, status: i32, _headers: &[(String, String)]) { self.0.lock().unwrap().status = Some(status) }
    fn data(&mut self, bytes: &[u8]) { self.0.lock().unwrap().body.extend_from_slice(bytes) }
    fn end(&mut self, end: End) { self.0.lock().unwrap().end = Some(end) }
}

fn fetch(resolver: &Resolver, url: &str) -> (Option<i32>, Vec<u8>, Option<End>) {
    let outcome = Arc::new(Mutex::new(Outcome::default()));
    let task = resolver.start("GET", url, &[("Accept", "*/*")], &[], Box::new(Collect(outcome.clone())));
    let deadline = Instant::now() + Duration::from_secs(20);
    while outcome.lock().unwrap().end.is_none() && Instant::now() < deadline {
        resolver.wait(Duration::from_millis(100));
        resolver.dispatch();
    }
    task.stop();
    let outcome = std::mem::take(&mut *outcome.lock().unwrap());
    (outcome.status, outcome.body, outcome.end)
}

#[test]
fn a_local_hit_comes_from_the_package() {
    let resolver = Resolver::new(&options()).unwrap();
    let (status, body, end) = fetch(&resolver, "app://www.example.com/app/index.html");
    assert_eq!((status, end), (Some(200), Some(End::Ok)));
    assert_eq!(body, b"<!doctype html><title>demo</title>");
}

#[test]
fn an_origin_answer_is_written_through_and_read_from_disk_next_time() {
    let url = "app://www.example.com/app/late.js";
    {
        let resolver = Resolver::new(&options()).unwrap();
        assert_eq!(fetch(&resolver, url).1, b"console.log('from the origin')");
    }
    let store = std::env::var("PKGCTL_TEST_STORE").unwrap();
    let overlay = Path::new(&store).join("cache/demo@1.0.0/www.example.com/app/late.js");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !overlay.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(overlay.exists(), "{overlay:?}");
    let again = Resolver::new(&options()).unwrap();
    assert_eq!(fetch(&again, url).1, b"console.log('from the origin')"); // nginx asked once: checked outside
}

#[test]
fn a_store_path_that_does_not_exist_is_refused_and_nothing_is_made() {
    let parent = std::env::temp_dir().join(format!("pkgctl-missing-store-{}", std::process::id()));
    let missing = parent.join("no/such/store");
    let refused = Resolver::new(&Options { offline: true, ..Options::store(missing.to_str().unwrap()) })
        .err()
        .unwrap_or_default();
    assert_eq!(refused, format!("store {} does not exist; pkgctl update creates a store (is the path right?)", missing.display()));
    assert!(!parent.exists(), "nothing created");
}

#[test]
fn offline_a_miss_ends_offline_and_a_bad_store_is_refused() {
    let resolver = Resolver::new(&Options { offline: true, ..options() }).unwrap();
    let (status, _, end) = fetch(&resolver, "app://www.example.com/app/nowhere.js");
    assert_eq!(status, None);
    assert!(matches!(end, Some(End::Offline(ref message)) if message.ends_with("(offline)")), "{end:?}");
    let refused = Resolver::new(&Options::store("")).err().unwrap_or_default();
    assert!(refused.contains("store_root"), "{refused}");
}

#[test]
fn a_plan_says_where_and_what_without_a_task() {
    let resolver = Resolver::new(&options()).unwrap();
    let plan = resolver.plan("GET", "app://www.example.com/app/index.html", &[("Accept", "text/html")]);
    assert_eq!((plan.source, plan.resource_class), ("package", "html"));
    assert_eq!(resolver.plan("GET", "app://www.example.com/app/nowhere.png", &[]).source, "origin");
    assert_eq!(resolver.counters().tasks_started, 0);
    let offline = Resolver::new(&Options { offline: true, ..options() }).unwrap();
    let plan = offline.plan("GET", "app://www.example.com/app/nowhere.js", &[("Accept", "*/*")]);
    assert_eq!((plan.source, plan.resource_class), ("offline", "script"));
}

struct Watch {
    index: usize,
    stopped: Arc<Vec<AtomicBool>>,
    late: Arc<AtomicUsize>,
    bodies: Arc<Mutex<HashSet<usize>>>,
}

impl Watch {
    fn called(&self) {
        if self.stopped[self.index].load(Ordering::SeqCst) {
            self.late.fetch_add(1, Ordering::SeqCst);
        }
        self.bodies.lock().unwrap().insert(self.index);
    }
}

impl Handler for Watch {
    fn response(&mut self, _: i32, _: &[(String, String)]) { self.called() }
    fn data(&mut self, _: &[u8]) { self.called() }
    fn end(&mut self, _: End) { self.called() }
}

#[test]
fn stops_from_several_threads_leave_no_late_callback() {
    // Nothing is reported consumed: each task stalls at its 64 KiB window mid-body.
    let resolver = Resolver::new(&Options { explicit_consumption: true, window: 64 * 1024, ..options() }).unwrap();
    let count = 40;
    let stopped = Arc::new((0..count).map(|_| AtomicBool::new(false)).collect::<Vec<_>>());
    let late = Arc::new(AtomicUsize::new(0));
    let bodies = Arc::new(Mutex::new(HashSet::new()));
    let mut tasks: Vec<_> = (0..count).map(|index| {
        let watch = Watch { index, stopped: stopped.clone(), late: late.clone(), bodies: bodies.clone() };
        Some(resolver.start("GET", "app://www.example.com/app/big.bin", &[], &[], Box::new(watch)))
    }).collect();
    let deadline = Instant::now() + Duration::from_secs(10);
    while bodies.lock().unwrap().len() < count && Instant::now() < deadline {
        resolver.wait(Duration::from_millis(50));
        resolver.dispatch();
    }
    assert_eq!(bodies.lock().unwrap().len(), count);

    std::thread::scope(|scope| {
        // Three quarters from three other threads, a quarter here between dispatches.
        for k in 1..4 {
            let mine: Vec<_> = (k..count).step_by(4).map(|i| (i, tasks[i].take().unwrap())).collect();
            let stopped = stopped.clone();
            scope.spawn(move || {
                for (i, task) in mine {
                    task.stop();
                    stopped[i].store(true, Ordering::SeqCst);
                }
            });
        }
        for i in (0..count).step_by(4) {
            resolver.dispatch();
            tasks[i].take().unwrap().stop();
            stopped[i].store(true, Ordering::SeqCst);
        }
    });
    let until = Instant::now() + Duration::from_millis(500);
    while Instant::now() < until {
        resolver.wait(Duration::from_millis(20));
        resolver.dispatch();
    }
    assert_eq!(late.load(Ordering::SeqCst), 0);
    let counters = resolver.counters();
    assert_eq!((counters.tasks_started, counters.tasks_stopped, counters.tasks_succeeded), (40, 40, 0));
}
