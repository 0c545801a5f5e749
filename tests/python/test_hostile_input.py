"""Hostile input (values nested past the reader's limit or containing themselves, lone
surrogates, huge documents and integers, files that are not results, saves over the run's own
inputs) raises codesim's exceptions with short messages, never RecursionError, pybind11's
TypeError or a bare JSONDecodeError."""

import json
import os
import shutil

import pytest

import codesim
from codesim import _codesim

SCENARIO = "scenarios/iterative_job.json"
LIMIT = 64 << 20  # the command line's kMaxJsonFileBytes (app/config/json_input.hpp)
DEPTH = 64  # its kMaxJsonDepth


def nested(levels):
    value = []
    for _ in range(levels):
        value = [value]
    return value


def test_the_limits_are_the_command_lines():
    assert _codesim.max_json_file_bytes == LIMIT and _codesim.max_json_depth == DEPTH


def test_a_value_nested_ten_thousand_levels_deep_is_refused_at_the_nesting_limit(cli, tmp_path):
    with pytest.raises(codesim.ScenarioError) as caught:
        codesim.Scenario({"cluster": nested(10_000)})
    error = caught.value
    assert error.pointer == "/cluster" + "/0" * (DEPTH - 1)  # the 65th container
    assert error.message == f"arrays and objects nested deeper than {DEPTH} levels (expected " \
                            f"at most {DEPTH})"
    # The command line reads the same document from a file and stops at the same place.
    document = tmp_path / "deep.json"
    document.write_text('{"cluster": ' + "[" * 10_000 + "]" * 10_000 + "}")
    printed = cli("validate", str(document)).stderr.decode().strip()
    assert printed == f"error: {document}: {error.pointer}: {error.message}"


def test_a_deep_value_set_at_a_pointer_counts_the_pointers_levels_as_the_command_line_does(cli):
    with pytest.raises(codesim.ScenarioError) as caught:
        codesim.Scenario.load(SCENARIO).set("/cluster/extra", nested(10_000))
    text = "[" * 10_000 + "]" * 10_000
    printed = cli("validate", SCENARIO, "--set", f"/cluster/extra={text}")
    assert printed.stderr.decode().strip() == f"error: {caught.value}"
    assert caught.value.pointer == "/cluster/extra" + "/0" * (DEPTH - 2)


def test_a_value_as_deep_as_the_limit_is_accepted():
    scenario = codesim.Scenario({"cluster": nested(DEPTH - 2)})
    assert scenario.document["cluster"] == nested(DEPTH - 2)


def test_a_list_that_contains_itself_is_refused_by_name():
    loop = [1, 2]
    loop.append(loop)
    with pytest.raises(codesim.ScenarioError) as caught:
        codesim.Scenario.load(SCENARIO).set("/sweep", {"grid": {"/cluster/nodes": loop}})
    assert caught.value.pointer == "/sweep/grid/~1cluster~1nodes/2"
    assert caught.value.message.startswith("a list that contains itself (expected")


def test_a_dict_that_contains_itself_is_refused_by_name():
    document = {"name": "loop"}
    document["cluster"] = {"inner": document}
    with pytest.raises(codesim.ScenarioError) as caught:
        codesim.Scenario(document)
    assert caught.value.pointer == "/cluster/inner"
    assert "a dict that contains itself" in str(caught.value)


def test_a_value_used_twice_but_not_inside_itself_is_fine():
    shared = [1, 2]
    scenario = codesim.Scenario({"a": shared, "b": {"c": shared}})
    assert scenario.document == {"a": [1, 2], "b": {"c": [1, 2]}}


def test_a_lone_surrogate_is_a_scenario_error_at_its_pointer_with_a_short_message():
    description = "x" * 5_000_000 + "\ud800"
    with pytest.raises(codesim.ScenarioError) as caught:
        codesim.Scenario({"name": "s", "cluster": {"nodes": 4}, "description": description})
    error = caught.value
    assert error.pointer == "/description" and len(str(error)) < 400
    assert "lone surrogate U+D800 at character 5000000" in error.message
    assert error.expected == "expected a string UTF-8 can encode"


def test_a_lone_surrogate_set_into_a_large_scenario_does_not_echo_the_scenario():
    scenario = codesim.Scenario({"description": "y" * 5_000_000})
    with pytest.raises(codesim.ScenarioError) as caught:
        scenario.set("/label", "a\udcff")
    assert caught.value.pointer == "/label" and len(str(caught.value)) < 400


def test_a_lone_surrogate_in_a_key_is_refused_at_its_object():
    with pytest.raises(codesim.ScenarioError) as caught:
        codesim.Scenario({"cluster": {"nodes": 4, "\udc80" * 1000: 1}})
    assert caught.value.pointer == "/cluster" and len(str(caught.value)) < 400
    assert caught.value.message.startswith("key '\\udc80")


@pytest.mark.parametrize("call", [
    lambda: codesim.Scenario.load(SCENARIO).set("/\ud800", 1),
    lambda: codesim.Scenario({"name": "x"}, file="\udcff.json"),
    lambda: codesim.Scenario.load("scenarios/\udcff.json"),
    lambda: codesim.Scenario.load(SCENARIO).validate(arithmetic="\ud800"),
], ids=["pointer", "file", "path", "arithmetic"])
def test_a_lone_surrogate_in_a_name_is_a_value_error_naming_it(call):
    with pytest.raises(ValueError, match=r"lone surrogate U\+D[8C]") as caught:
        call()
    assert not isinstance(caught.value, TypeError) and len(str(caught.value)) < 400


def test_a_lone_surrogate_in_an_option_of_codes_is_an_option_error():
    with pytest.raises(codesim.OptionError, match="lone surrogate"):
        codesim.codes(scheme="gpd\ud800")


def test_a_dict_larger_than_the_command_lines_limit_is_refused_before_it_is_sent():
    with pytest.raises(codesim.ScenarioError) as caught:
        codesim.Scenario({"name": "big", "description": "z" * LIMIT})
    error = caught.value
    assert error.pointer == "" and f"more than {LIMIT} bytes as JSON" in error.message
    assert "the limit of 64 MiB" in error.message and len(str(error)) < 400


def test_a_value_whose_numbers_pass_the_limit_only_once_written_is_refused():
    # 500,000 floats of 23 characters against 10 MB left: the walk's lower bound (4 bytes each)
    # passes, the text does not.
    scenario = codesim.Scenario({"description": "a" * (LIMIT - 10_000_000)})
    with pytest.raises(codesim.ScenarioError, match=f"more than {LIMIT} bytes") as caught:
        scenario.set("/values", [1.2345678901234567e-300] * 500_000)
    assert caught.value.pointer == "/values"


def test_a_set_that_would_take_the_document_past_the_limit_is_refused_at_its_pointer():
    scenario = codesim.Scenario({"description": "a" * (LIMIT - 1000)})
    with pytest.raises(codesim.ScenarioError) as caught:
        scenario.set("/label", "b" * 2000)
    assert caught.value.pointer == "/label" and "the limit of 64 MiB" in caught.value.message
    assert len(scenario.document["description"]) == LIMIT - 1000  # unchanged


def test_a_seed_past_64_bits_is_shown_in_full_outside_its_range():
    with pytest.raises(codesim.ScenarioError) as caught:
        codesim.run(SCENARIO, seed=2**64)
    assert caught.value.pointer == "/seed"
    assert caught.value.message == ("value 18446744073709551616 is out of range (expected an "
                                    "integer in [0, 18446744073709551615])")


def test_an_integer_wider_than_json_holds_is_shown_in_full_or_by_its_size():
    with pytest.raises(codesim.ScenarioError, match=r"value 1180591620717411303424 is out of "
                       r"range \(expected an integer in \[-9223372036854775808, "):
        codesim.Scenario.load(SCENARIO).set("/cluster/nodes", 2**70)
    with pytest.raises(codesim.ScenarioError, match="about 5001 digits") as caught:
        codesim.Scenario.load(SCENARIO).set("/cluster/nodes", 10**5000)
    assert len(str(caught.value)) < 400


def test_a_mapping_other_than_a_dict_is_written_as_a_dict():
    from types import MappingProxyType
    scenario = codesim.Scenario({"cluster": MappingProxyType({"nodes": 4})})
    assert scenario.document == {"cluster": {"nodes": 4}}


@pytest.mark.parametrize("content, says", [
    (b"", "not a results file: the file is empty"),
    (b'{"points": [', "not a results file: invalid JSON at line 1, column 13: "),
    (b"\xff\xfe{", "not a results file: "),
    (b"[" * 100_000, "not a results file: "),
    (b'{"table": "t1", "rows": []}', 'not a results file: no "points" list'),
    (b"[1, 2]", "not a results file: the document is an array, not an object"),
], ids=["empty", "truncated", "not utf-8", "deep", "other json", "array"])
def test_a_file_that_is_not_results_is_refused_by_name(tmp_path, content, says):
    file = tmp_path / "results.json"
    file.write_bytes(content)
    with pytest.raises(codesim.ResultsError) as caught:
        codesim.Results.load(file)
    assert str(caught.value).startswith(f"{file}: {says}") and len(str(caught.value)) < 400
    assert str(caught.value).endswith("(expected a results file written by codesim run or "
                                      "Results.save)")
    assert isinstance(caught.value, codesim.Error)


def test_a_truncated_results_file_is_refused_by_name(tmp_path, root):
    whole = (root / "results/quickstart.json").read_bytes()
    cut = tmp_path / "cut.json"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(codesim.ResultsError, match=f"^{cut}: not a results file: invalid JSON"):
        codesim.Results.load(cut)


def test_a_missing_file_a_directory_and_a_fifo_are_refused_without_reading(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path, says in [(tmp_path / "none.json", "no such file"), (tmp_path, "is a directory"),
                       (fifo, "is not a regular file")]:
        with pytest.raises(codesim.ResultsError, match=f"^{path}: {says} \\(expected"):
            codesim.Results.load(path)


ADVISE = ["advise", "tests/mpi/advice_map.json", "--budget-s", "0.01", "-q"]
MAP = ["--map", "/faults/targets/weights/probability_per_operation=1e-4..1e-2:2"]


@pytest.mark.parametrize("options, says", [
    ([], "is an advice file written by codesim advise, not run results"),
    (MAP, "is an advice map written by codesim advise --map, not run results"),
], ids=["advice", "map"])
def test_an_advice_or_map_file_codesim_advise_wrote_is_refused_by_name_at_load(
        cli, tmp_path, options, says):
    file = tmp_path / "advice.json"
    done = cli(*ADVISE, *options, "-o", str(file))
    assert done.returncode == 0, done.stderr
    with pytest.raises(codesim.ResultsError, match=f"^{file}: {says} \\(expected a results"):
        codesim.Results.load(file).to_pandas()


def test_series_of_a_stochastic_run_says_it_has_none_because_it_is_stochastic(root):
    results = codesim.Results.load(root / "results/codenet_mnist_paper_stochastic.json")
    with pytest.raises(codesim.SeriesError) as caught:
        results.series("accuracy_vs_time")
    assert "no series 'accuracy_vs_time': a stochastic run evaluates nothing" in str(caught.value)
    assert "expected one of: none" not in str(caught.value)
    assert isinstance(caught.value, KeyError) and isinstance(caught.value, codesim.Error)
    assert not str(caught.value).startswith('"')


def test_series_of_an_iterative_job_says_it_records_none():
    results = codesim.run(SCENARIO, replicas=1)
    with pytest.raises(codesim.SeriesError, match="^<results>: no series 'x': an iterative job"):
        results.series("x")


def test_save_refuses_the_scenario_file_the_run_read_and_leaves_it_whole(tmp_path, root):
    scenario = tmp_path / "job.json"
    shutil.copy(root / SCENARIO, scenario)
    before = scenario.read_bytes()
    results = codesim.run(scenario, replicas=1)
    link = tmp_path / "link.json"
    link.symlink_to(scenario)
    for path in [scenario, link, tmp_path / "." / "job.json"]:
        with pytest.raises(codesim.ResultsError, match="is the scenario file") as caught:
            results.save(path)
        assert json.dumps(str(scenario)) in str(caught.value)
    assert scenario.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.json", "link.json"]


def test_save_refuses_a_trace_the_run_read(tmp_path):
    trace = tmp_path / "down.csv"
    trace.write_text("node,down_s,up_s\n0,1,2\n")
    scenario = codesim.Scenario.load(SCENARIO).set("/cluster/availability_trace", str(trace))
    results = codesim.run(scenario, replicas=1)
    with pytest.raises(codesim.ResultsError, match="is a trace read by /cluster/availability"):
        results.save(trace)
    assert trace.read_text() == "node,down_s,up_s\n0,1,2\n"


def test_save_refuses_a_directory_and_leaves_no_partial_file(tmp_path):
    results = codesim.run(SCENARIO, replicas=1)
    (tmp_path / "out.json").mkdir()
    with pytest.raises(codesim.ResultsError, match="is a directory"):
        results.save(tmp_path / "out.json")
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
    saved = results.save(tmp_path / "new" / "out.json")
    assert codesim.Results.load(saved).to_json() == results.to_json()


def test_save_refuses_a_fault_log_the_run_wrote_and_its_dataset_directory(tmp_path):
    scenario = codesim.Scenario.load("scenarios/quickstart.json").set("/replicas", 1)
    scenario.set("/workload/iterations", 20).set("/faults/log_file", str(tmp_path / "{point}.json"))
    results = codesim.run(scenario)
    log = results.fault_logs[0]
    written = open(log, "rb").read()
    with pytest.raises(codesim.ResultsError, match="is the fault log the run wrote"):
        results.save(log)
    assert open(log, "rb").read() == written
    directory = next(path for path, _, is_directory in results._kept if is_directory)
    with pytest.raises(codesim.ResultsError, match="is inside the dataset directory"):
        results.save(os.path.join(directory, "new", "results.json"))
    assert not os.path.exists(os.path.join(directory, "new"))


def test_a_save_that_cannot_be_written_is_an_error_and_leaves_nothing(tmp_path):
    results = codesim.run(SCENARIO, replicas=1)
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(codesim.Error, match=f"^{blocked / 'out.json'}: cannot write the results"):
        results.save(blocked / "out.json")
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


def test_plot_of_loaded_results_named_like_a_path_writes_only_into_its_directory(tmp_path, root):
    document = json.loads((root / "results/quickstart.json").read_text())
    document["scenario"]["name"] = "../../escaped"
    file = tmp_path / "named.json"
    file.write_text(json.dumps(document))
    figures = codesim.plot(codesim.Results.load(file), kind="accuracy_vs_time",
                           output_dir=tmp_path / "figures")
    assert [figure.name for figure in figures] == ["results.accuracy_vs_time.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figures", "named.json"]
