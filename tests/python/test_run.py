"""codesim.run gives the bytes of `codesim run -o`, and tables of them."""

import threading
import time

import codesim

QUICKSTART_CUT = ("/workload/iterations", 200)


def quickstart_cut():
    return codesim.Scenario.load("scenarios/quickstart.json").set(*QUICKSTART_CUT)


def cli_bytes(cli, tmp_path, *args):
    output = tmp_path / "cli.json"
    done = cli("run", *args, "-o", str(output), "-q")
    assert done.returncode == 0, done.stderr
    return output.read_bytes()


def test_to_json_equals_the_cli_bytes_for_the_iterative_job(cli, tmp_path):
    results = codesim.run("scenarios/iterative_job.json", jobs=2)
    assert results.to_json().encode() == cli_bytes(cli, tmp_path, "scenarios/iterative_job.json")


def test_to_json_equals_the_cli_bytes_for_the_quickstart_cut(cli, tmp_path):
    results = codesim.run(quickstart_cut(), replicas=2, seed=7)
    expected = cli_bytes(cli, tmp_path, "scenarios/quickstart.json", "--set",
                         f"{QUICKSTART_CUT[0]}={QUICKSTART_CUT[1]}", "--replicas", "2",
                         "--seed", "7")
    assert results.to_json().encode() == expected
    assert results.complete


def test_options_that_never_change_results_do_not_change_the_bytes():
    one = codesim.run(quickstart_cut(), replicas=2, arithmetic="portable")
    many = codesim.run(quickstart_cut(), replicas=2, arithmetic="portable", jobs=2, threads=2)
    assert one.to_json() == many.to_json()


def test_to_pandas_has_one_row_per_replica_and_point():
    results = codesim.run(quickstart_cut(), replicas=2)
    table = results.to_pandas()
    replicas = sum(len(point["replicas"]) for point in results.points)
    assert len(results.points) > 1 and len(table) == replicas == 2 * len(results.points)
    assert {"point", "label", "replica", "final_test_accuracy"} <= set(table.columns)
    for key in results.points[0]["params"]:
        assert key in table.columns
    first = results.points[1]["replicas"][1]
    row = table[(table.point == 1) & (table.replica == first["replica"])].iloc[0]
    assert row["completion_time_s"] == first["completion_time_s"]


def test_series_is_one_table_of_every_replicas_rows():
    results = codesim.run(quickstart_cut(), replicas=2)
    table = results.series("accuracy_vs_time")
    rows = sum(len(r["accuracy_vs_time"]["rows"]) for p in results.points for r in p["replicas"])
    assert len(table) == rows
    assert {"point", "replica", "time_s", "test_accuracy"} <= set(table.columns)
    assert "accuracy_vs_time" in results.series_names()


def test_results_are_a_mapping_and_save_writes_the_cli_bytes(tmp_path):
    results = codesim.run("scenarios/iterative_job.json", replicas=3)
    assert results["scenario"]["name"] == "iterative_job" and "points" in results
    assert len(results["points"][0]["replicas"]) == 3
    saved = results.save(tmp_path / "out" / "r.json")
    assert saved.read_text() == results.to_json()
    assert codesim.Results.load(saved) == results


def test_progress_is_called_on_the_calling_thread_and_ends_at_the_total():
    seen = []
    caller = threading.get_ident()
    codesim.run(quickstart_cut(), replicas=2,
                progress=lambda p: seen.append((threading.get_ident(), p)))
    assert seen and all(thread == caller for thread, _ in seen)
    last = seen[-1][1]
    assert last.replicas_done == last.replicas_total > 0
    assert last.points_done == last.points_total and last.iterations > 0


def test_two_python_threads_at_once_give_the_results_of_one_after_the_other():
    scenarios = [quickstart_cut().set("/seed", seed) for seed in (1, 2)]
    alone = [codesim.run(s, replicas=2).to_json() for s in scenarios]
    together = [None, None]
    spans = [None, None]

    def run(i):
        start = time.monotonic()
        together[i] = codesim.run(scenarios[i], replicas=2).to_json()
        spans[i] = (start, time.monotonic())

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert together == alone and alone[0] != alone[1]
    # They ran at once: the GIL was released while each ran.
    assert spans[0][0] < spans[1][1] and spans[1][0] < spans[0][1]
