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


# --- The binding as a Python developer would use it (issue 49) ---------------------------------

def test_fetch_returns_the_whole_answer_with_case_insensitive_headers():
    with pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM) as resolver:
        response = resolver.fetch("app://www.example.com/app/index.html", headers={"Accept": "text/html"})
    assert (response.status, response.body) == (200, b"<!doctype html><title>demo</title>")
    assert response.headers["content-type"] == response.headers["Content-Type"]
    assert response.headers["CONTENT-TYPE"].startswith("text/html")
    assert response.headers.get_all("content-type") == [response.headers["content-type"]]
    assert "Content-Type" in response.headers and "X-Absent" not in response.headers
    assert len(response.headers.items()) >= len(response.headers)


def test_each_failure_is_its_own_exception_with_its_result():
    with pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM, offline=True) as offline:
        try:
            offline.fetch("app://www.example.com/app/nowhere.js")
        except pkgctl_resolver.OfflineError as error:
            assert error.result is pkgctl_resolver.Result.OFFLINE
            assert str(error).endswith("is in no installed package (offline)")
        else:
            raise AssertionError("an offline miss was answered")
    # Nothing listens on port 1 of 127.0.0.1: the connection is refused at once.
    with pkgctl_resolver.Resolver(STORE, upstream="http://127.0.0.1:1") as unreachable:
        try:
            unreachable.fetch("app://www.example.com/app/nowhere.js")
        except pkgctl_resolver.TransferError as error:
            assert error.result is pkgctl_resolver.Result.TRANSFER and isinstance(error, pkgctl_resolver.ResolverError)
        else:
            raise AssertionError("an unreachable origin answered")


def test_an_exception_in_a_callback_stops_its_task_and_is_raised_from_dispatch():
    resolver = pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM)
    calls = []

    def on_data(data):
        calls.append(len(data))
        raise RuntimeError("the host failed")

    task = resolver.start("GET", "app://www.example.com/app/big.bin", on_data=on_data,
                          on_end=lambda *_: calls.append("end"))
    raised = None
    deadline = time.monotonic() + 10
    while raised is None and time.monotonic() < deadline:
        select.select([resolver], [], [], 0.05)
        try:
            resolver.dispatch()
        except RuntimeError as error:
            raised = error
    assert str(raised) == "the host failed"
    assert task.stopped and len(calls) == 1
    until = time.monotonic() + 0.3
    while time.monotonic() < until:  # nothing of the stopped task runs after
        select.select([resolver], [], [], 0.02)
        resolver.dispatch()
    assert len(calls) == 1 and resolver.counters().tasks_stopped == 1
    resolver.close()


def test_arguments_are_checked_before_they_reach_the_library():
    for window in (-1, 2 ** 64, True, 1.5):
        try:
            pkgctl_resolver.Resolver(STORE, window=window)
        except ValueError as error:
            assert "window must be a byte count" in str(error)
        else:
            raise AssertionError(f"window={window!r} was accepted")
    with pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM) as resolver:
        for body in ("x=1&y=2", 12):
            try:
                resolver.start("POST", "app://www.example.com/app/form", body=body)
            except TypeError as error:
                assert "body must be bytes-like" in str(error)
            else:
                raise AssertionError(f"body={body!r} was accepted")
        for headers in ("Accept", [("Accept",)], [(b"Accept", b"*/*")]):
            try:
                resolver.plan("GET", "app://www.example.com/app/", headers=headers)
            except TypeError:
                pass
            else:
                raise AssertionError(f"headers={headers!r} were accepted")
        with resolver.start("POST", "app://www.example.com/app/form", body=bytearray(b"x=1&y=2")) as task:
            assert not task.stopped
        assert task.stopped
        assert resolver.plan("GET", "app://www.example.com/app/index.html", {"Accept": "text/html"}).source == "package"


def test_a_closed_resolver_says_so():
    with pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM) as resolver:
        pass
    for call in (lambda: resolver.start("GET", "app://www.example.com/app/"), resolver.dispatch, resolver.fileno,
                 lambda: resolver.plan("GET", "app://www.example.com/app/"), resolver.counters):
        try:
            call()
        except ValueError as error:
            assert str(error) == "resolver is closed"
        else:
            raise AssertionError("a closed resolver was used")
    resolver.close()  # again: nothing to do


def test_a_resolver_never_closed_is_freed_when_collected():
    import gc
    resolver = pkgctl_resolver.Resolver(STORE, upstream=UPSTREAM)
    task = resolver.start("GET", "app://www.example.com/app/big.bin")
    descriptor = resolver.fileno()
    os.fstat(descriptor)
    del resolver, task
    gc.collect()
    try:
        os.fstat(descriptor)  # the library closes its descriptor as it frees the resolver
    except OSError:
        pass
    else:
        raise AssertionError("the resolver's descriptor is still open: it was not freed")
