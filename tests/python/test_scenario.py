"""Scenario: loading, setting and resolving give what `codesim validate` gives."""

import json

import codesim


def test_resolved_equals_validate_resolved_of_the_command_line(cli):
    scenario = codesim.Scenario.load("scenarios/quickstart.json")
    printed = cli("validate", "scenarios/quickstart.json", "--resolved")
    assert printed.returncode == 0
    assert scenario.resolved() == json.loads(printed.stdout)


def test_set_equals_the_command_lines_set(cli):
    scenario = codesim.Scenario.load("scenarios/iterative_job.json")
    scenario.set("/cluster/nodes", 32).set("/name", "renamed")
    printed = cli("validate", "scenarios/iterative_job.json", "--resolved",
                  "--set", "/cluster/nodes=32", "--set", "/name=renamed")
    assert scenario.resolved() == json.loads(printed.stdout)
    assert scenario.resolved()["cluster"]["nodes"] == 32


def test_a_dict_is_the_same_scenario_as_its_file(root):
    document = json.loads((root / "scenarios/iterative_job.json").read_text())
    assert codesim.Scenario(document) == codesim.Scenario.load("scenarios/iterative_job.json")


def test_set_leaves_a_copy_unchanged():
    scenario = codesim.Scenario.load("scenarios/iterative_job.json")
    copy = scenario.copy()
    scenario.set("/replicas", 2)
    assert copy.document["replicas"] == 20 and scenario.document["replicas"] == 2


def test_validate_passes_a_good_scenario_and_numpy_values_are_plain_numbers():
    numpy = __import__("numpy")
    scenario = codesim.Scenario.load("scenarios/iterative_job.json")
    scenario.set("/cluster/nodes", numpy.int64(16))
    assert scenario.validate() == []
    assert scenario.document["cluster"]["nodes"] == 16
