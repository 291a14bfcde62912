"""pytest tests of the ctypes binding, driving the real resolver. ResolverCABITests runs them
with PKGCTL_TEST_STORE (a store whose demo package routes www.example.com/app),
PKGCTL_TEST_UPSTREAM (nginx serving /app/late.js and the 8 MiB /app/big.bin) and
PKGCTL_RESOLVER_LIBRARY set, and checks nginx's log afterwards."""
import os
import select
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import pkgctl_resolver  # noqa: E402

STORE = os.environ["PKGCTL_TEST_STORE"]
UPSTREAM = os.environ["PKGCTL_TEST_UPSTREAM"]


def fetch(resolver, url, seconds=20):
    """Runs one GET to its end: (status, body, result, message)."""
    got = {"status": None, "body": b"", "end": None}
    task = resolver.start("GET", url, headers=[("Accept", "*/*")],
                          on_response=lambda status, headers: got.update(status=status),
                          on_data=lambda data: got.update(body=got["body"] + data),
                          on_end=lambda result, message: got.update(end=(result, message)))
    deadline = time.monotonic() + seconds
    while got["end"] is None and time.monotonic() < deadline:
        select.select([resolver], [], [], 0.1)
        resolver.dispatch()
    task.stop()
    return got["status"], got["body"], got["end"]


def test_a_local_hit_comes_from_the_package():
    resolver = pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM)
    status, body, end = fetch(resolver, "app://www.example.com/app/index.html")
    assert (status, end) == (200, (pkgctl_resolver.OK, None))
    assert body == b"<!doctype html><title>demo</title>"
    assert resolver.counters().tasks_succeeded == 1
    resolver.close()


def test_an_origin_answer_is_written_through_and_read_from_disk_next_time():
    resolver = pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM)
    assert fetch(resolver, "app://www.example.com/app/late.js")[:2] == (200, b"console.log('from the origin')")
    resolver.close()
    overlay = os.path.join(STORE, "cache", "demo@1.0.0", "www.example.com", "app", "late.js")
    for _ in range(50):  # the overlay commit follows the answer
        if os.path.exists(overlay):
            break
        time.sleep(0.1)
    assert os.path.exists(overlay)
    again = pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM)
    assert fetch(again, "app://www.example.com/app/late.js")[:2] == (200, b"console.log('from the origin')")
    again.close()  # the test that runs pytest checks nginx was asked once


def test_a_store_path_that_does_not_exist_is_refused_and_nothing_is_made(tmp_path):
    missing = tmp_path / "no" / "such" / "store"
    try:
        pkgctl_resolver.Resolver(str(missing), offline=True)
    except OSError as error:
        assert str(error) == f"store {missing} does not exist; pkgctl update creates a store (is the path right?)"
    else:
        raise AssertionError("a missing store was accepted")
    assert not (tmp_path / "no").exists()


def test_a_launch_problem_with_no_trial_by_launches_changes_nothing():
    resolver = pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM)
    fetch(resolver, "app://www.example.com/app/index.html")
    assert resolver.report_launch_problem("app://www.example.com/app/index.html", "TypeError") is False
    resolver.close()


def test_offline_a_miss_ends_with_the_offline_result():
    resolver = pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM, offline=True)
    status, body, (result, message) = fetch(resolver, "app://www.example.com/app/nowhere.js")
    assert (status, body, result) == (None, b"", pkgctl_resolver.ERR_OFFLINE)
    assert message.endswith("is in no installed package (offline)")
    resolver.close()


def test_a_plan_says_where_and_what_without_a_task():
    resolver = pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM)
    assert resolver.plan("GET", "app://www.example.com/app/index.html", [("Accept", "text/html")]) == ("package", "html")
    plan = resolver.plan("GET", "app://www.example.com/app/nowhere.css")
    assert (plan.source, plan.resource_class) == ("origin", "style")
    assert resolver.counters().tasks_started == 0
    resolver.close()
    offline = pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM, offline=True)
    assert offline.plan("GET", "app://www.example.com/app/nowhere.js") == ("offline", "script")
    assert offline.plan("GET", "app://www.example.com/%2e%2e/x.js").source == "refused"
    offline.close()


def test_stops_from_several_threads_leave_no_late_callback():
    # Nothing is reported consumed: each task stalls at its 64 KiB window mid-body.
    resolver = pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM, explicit_consumption=True, window=64 * 1024)
    count, stopped, late, bodies = 40, set(), [], set()

    def callback(index):
        def record(*_):
            if index in stopped:
                late.append(index)
            bodies.add(index)
        return record

    tasks = [resolver.start("GET", "app://www.example.com/app/big.bin", on_response=callback(i), on_data=callback(i),
                            on_end=callback(i)) for i in range(count)]
    deadline = time.monotonic() + 10
    while len(bodies) < count and time.monotonic() < deadline:
        select.select([resolver], [], [], 0.05)
        resolver.dispatch()
    assert len(bodies) == count

    def stop_range(indices):
        for i in indices:
            tasks[i].stop()
            stopped.add(i)

    threads = [threading.Thread(target=stop_range, args=(range(k, count, 4),)) for k in range(1, 4)]
    for thread in threads:
        thread.start()
    for i in range(0, count, 4):  # a quarter from the dispatching thread, between dispatches
        resolver.dispatch()
        tasks[i].stop()
        stopped.add(i)
    for thread in threads:
        thread.join()
    until = time.monotonic() + 0.5
    while time.monotonic() < until:
        select.select([resolver], [], [], 0.02)
        resolver.dispatch()
    assert late == []
    counters = resolver.counters()
    assert (counters.tasks_started, counters.tasks_stopped, counters.tasks_succeeded) == (count, count, 0)
    resolver.close()


def test_a_callback_stopping_its_task_does_not_wait_for_consumption_reported_on_another_thread():
    # A host whose engine reads bodies on another thread (Chromium's IO thread under Qt) reports
    # consumption from there while a callback on the dispatching thread stops the task (a page
    # gone). The library's consumed() may wait for that callback to return; the binding once held
    # its lock across it, which the stop waited for: a deadlock (Examples/HybridAppPyQt hung so).
    resolver = pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM, explicit_consumption=True, window=64 * 1024)
    outcome = {}

    def scenario():  # on a thread of its own, so a deadlock fails the test instead of hanging it
        stopping, finished = threading.Event(), threading.Event()
        task = None

        def on_data(_):
            if not stopping.is_set():
                stopping.set()
                time.sleep(0.3)  # the reporting thread is inside consumed() meanwhile
                task.stop()
                outcome["stopped"] = True

        task = resolver.start("GET", "app://www.example.com/app/big.bin", on_data=on_data)

        def report():
            stopping.wait(10)
            until = time.monotonic() + 2
            while time.monotonic() < until and not finished.is_set():
                task.consumed(1)

        reporter = threading.Thread(target=report, daemon=True)
        reporter.start()
        deadline = time.monotonic() + 10
        while "stopped" not in outcome and time.monotonic() < deadline:
            select.select([resolver], [], [], 0.05)
            resolver.dispatch()
        finished.set()
        reporter.join(5)
        outcome["reporter ended"] = not reporter.is_alive()

    runner = threading.Thread(target=scenario, daemon=True)
    runner.start()
    runner.join(20)
    assert not runner.is_alive(), "the stop and the consumption report waited for each other"
    assert outcome == {"stopped": True, "reporter ended": True}
    assert resolver.counters().tasks_stopped == 1
    resolver.close()
