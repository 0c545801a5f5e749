"""codesim.codes, codesim.theory and codesim.plot are the commands of the same names."""

import json

import codesim


def test_codes_returns_what_codes_json_prints(cli):
    printed = cli("codes", "--scheme", "gpd", "--m", "2", "--n", "2", "--nodes", "6", "--json")
    assert printed.returncode == 0
    assert codesim.codes(scheme="gpd", m=2, n=2, nodes=6) == json.loads(printed.stdout)


def test_theory_returns_what_theory_json_prints(cli):
    printed = cli("theory", "--table", "tolerance", "--m", "2", "--n", "2", "--json")
    assert printed.returncode == 0
    assert codesim.theory(table="tolerance", m=2, n=2) == json.loads(printed.stdout)


def test_plot_draws_the_chosen_figure_of_a_results_object(tmp_path):
    results = codesim.run("scenarios/iterative_job.json", replicas=2)
    paths = codesim.plot(results, kind="time_breakdown", output_dir=tmp_path)
    assert paths == [tmp_path / "iterative_job.time_breakdown.png"]
    assert paths[0].stat().st_size > 0


def test_plot_of_a_figure_that_does_not_fit_is_an_option_error(tmp_path):
    results = codesim.run("scenarios/iterative_job.json", replicas=2)
    try:
        codesim.plot(results, kind="accuracy_vs_time", output_dir=tmp_path)
    except codesim.OptionError as error:
        assert "time_breakdown" in str(error)
    else:
        raise AssertionError("expected an OptionError")
    assert list(tmp_path.iterdir()) == []
