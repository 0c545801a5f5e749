"""codesim from Python: the simulator of unreliable clusters running coded DNN arithmetic, equal
to the command line byte for byte (README: Python).

    import codesim
    results = codesim.run(codesim.Scenario.load("scenarios/quickstart.json"), replicas=2)
    table = results.to_pandas()
"""

from ._codesim import Error, ScenarioError
from ._codesim import version as _version
from .commands import OptionError, codes, plot, theory
from .results import Results, ResultsError, SeriesError
from .running import Interrupted, Progress, RunWarning, run
from .scenario import Scenario

__version__ = _version()
__all__ = ["Error", "Interrupted", "OptionError", "Progress", "Results", "ResultsError",
           "RunWarning", "Scenario", "ScenarioError", "SeriesError", "codes", "plot", "run",
           "theory"]
