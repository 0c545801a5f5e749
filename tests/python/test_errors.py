"""Bad input raises codesim.ScenarioError with the command line's exit-2 line, file, pointer and
expected; other failures raise codesim.Error; the interpreter never aborts."""

import json

import pytest

import codesim

SCENARIO = "scenarios/iterative_job.json"

# (what is wrong, the Python call, the command line that must print the same line, pointer)
CASES = [
    ("a missing file", lambda: codesim.Scenario.load("no/such.json"),
     ["validate", "no/such.json"], ""),
    ("an unknown key", lambda: codesim.Scenario.load(SCENARIO).set("/cluster/nodez", 3).validate(),
     ["validate", SCENARIO, "--set", "/cluster/nodez=3"], "/cluster/nodez"),
    ("a negative node count", lambda: codesim.Scenario.load(SCENARIO).set("/cluster/nodes", -1)
     .validate(), ["validate", SCENARIO, "--set", "/cluster/nodes=-1"], "/cluster/nodes"),
    ("a string for a number", lambda: codesim.run(SCENARIO, replicas="many"),
     ["run", SCENARIO, "--replicas", "\"many\"", "-o", "-"], "/replicas"),
    ("a negative seed", lambda: codesim.run(SCENARIO, seed=-1),
     ["run", SCENARIO, "--seed", "-1", "-o", "-"], "/seed"),
    ("a negative learning rate", lambda: codesim.Scenario.load("scenarios/quickstart.json")
     .set("/workload/learning_rate", -1).validate(),
     ["validate", "scenarios/quickstart.json", "--set", "/workload/learning_rate=-1"],
     "/workload/learning_rate"),
    ("an empty sweep axis", lambda: codesim.Scenario.load(SCENARIO)
     .set("/sweep", {"grid": {"/cluster/nodes": []}}).validate(),
     ["validate", SCENARIO, "--set", '/sweep={"grid": {"/cluster/nodes": []}}'],
     "/sweep/grid/~1cluster~1nodes"),
    ("a pointer without its slash", lambda: codesim.Scenario.load(SCENARIO).set("cluster", 3),
     ["validate", SCENARIO, "--set", "cluster=3"], ""),
    ("an unknown arithmetic", lambda: codesim.run(SCENARIO, arithmetic="fastest"), None, ""),
    ("no threads", lambda: codesim.run(SCENARIO, jobs=0), None, ""),
    ("a NaN in a dict", lambda: codesim.Scenario({"cluster": {"nodes": float("nan")}}), None,
     "/cluster/nodes"),
    ("a tuple key in a dict", lambda: codesim.Scenario({"cluster": {(1, 2): 3}}), None,
     "/cluster"),
]


@pytest.mark.parametrize("what, call, command, pointer", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_a_scenario_error_at_its_pointer(cli, what, call, command, pointer):
    with pytest.raises(codesim.ScenarioError) as caught:
        call()
    error = caught.value
    assert isinstance(error, codesim.Error) and isinstance(error, ValueError)
    assert error.pointer == pointer
    assert error.expected.startswith("expected ") and error.expected in str(error)
    assert str(error).startswith(f"{error.file}: {pointer or '/'}: {error.message}")
    if command is not None:
        printed = cli(*command)
        assert printed.returncode == 2
        assert printed.stderr.decode().strip() == f"error: {error}"


def test_a_file_that_is_not_json_names_where_it_breaks(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"cluster": ')
    with pytest.raises(codesim.ScenarioError) as caught:
        codesim.Scenario.load(broken)
    assert caught.value.file == str(broken) and "expected" in caught.value.expected


def test_bad_options_of_the_other_commands_raise_option_errors(cli):
    with pytest.raises(codesim.OptionError) as caught:
        codesim.codes(scheme="magic")
    printed = cli("codes", "--scheme", "magic", "--json")
    assert printed.returncode == 2 and printed.stderr.decode().strip() == f"error: {caught.value}"
    assert isinstance(caught.value, codesim.Error)


def test_a_fault_log_that_cannot_be_written_is_refused_before_the_run(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    scenario = codesim.Scenario.load("scenarios/quickstart.json")
    scenario.set("/workload/iterations", 20).set("/replicas", 1)
    scenario.set("/faults/log_file", str(blocked / "log{point}.json"))
    with pytest.raises(codesim.ScenarioError) as caught:
        codesim.run(scenario)
    assert caught.value.pointer == "/faults/log_file" and "not a directory" in str(caught.value)


def test_resolved_of_a_bad_scenario_raises_rather_than_returning_half_a_document():
    with pytest.raises(codesim.ScenarioError):
        codesim.Scenario.load(SCENARIO).set("/cluster/nodes", 0).resolved()
    assert json.loads(json.dumps(codesim.Scenario.load(SCENARIO).resolved()))


@pytest.mark.parametrize("options", [{"jobs": "2"}, {"threads": True}, {"arithmetic": 5}])
def test_an_option_of_the_wrong_type_is_a_type_error_naming_it(options):
    (name,) = options
    with pytest.raises(TypeError, match=f"^{name} must be"):
        codesim.run(SCENARIO, **options)


def test_a_figure_that_cannot_be_written_is_an_error_without_the_prefix(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(codesim.Error) as caught:
        codesim.plot(codesim.run(SCENARIO, replicas=1), output_dir=blocked)
    assert not str(caught.value).startswith("error:") and "cannot write" in str(caught.value)
