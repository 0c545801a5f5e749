"""The steps of scripts/reproduce: one module per group of claims (see scripts/reproduce). The
plot scripts' modules (analysis/plots: common, paper_figures, ...) are importable from here."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plots"))
