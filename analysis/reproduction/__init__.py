"""The steps of scripts/reproduce: one module per group of claims (see scripts/reproduce)."""
