"""What each claim rests on and what its verdict is checked against."""

# Where a claim comes from.
SOURCE_NAMES = {"paper": "a paper's statement, quoted", "paraphrase": "a paper's result, paraphrased"}
# What the numbers are checked against: an outside formula or program where one exists, else the
# project's own closed forms and tables (no outside number available), or the simulated runs
# themselves (an error-free reference, or paired runs of the strategies compared).
CHECK_NAMES = {"derivation": "the project's derivation", "formula": "an outside formula",
               "program": "an outside program", "runs": "the simulated runs, paired",
               "reference": "the error-free run"}

# Per step: (source kind, check kind, what). A gap that depends on a cost the project chose says
# so here.
REFERENCES = {
    "T1": ("paraphrase", "derivation", "the project's derivation of K from the codes' polynomial degrees "
           "(docs/reproduction.md, \"Derivations\"; the GPD abstract gives no value of K), and "
           "real decodes from every K-subset; the threshold / communication table against the "
           "thresholds and traffic derived from the schemes' structure, and the exact expected "
           "time of the K-th fastest node against a Monte Carlo of the simulator's straggler "
           "draws"),
    "T2": ("paraphrase", "derivation", "the bounds of real-number codes as the GPD paper uses them (arXiv "
           "1811.10751; paraphrased in docs/reproduction.md, T2: the project holds no copy of "
           "that abstract to quote) and the worst-case bound derived there, against real decodes; "
           "the decoding guard's conditioning flag against real float64 decodes as P grows"),
    "T3": ("paper", "derivation", "GPD (ISIT 2018) abstract: \"Our strategy can provide unboundedly better "
           "error tolerance than the competing replication strategy and an MDS-code-based "
           "strategy\"; the counts are the project's tolerance tables (docs/reproduction.md, "
           "\"Derivations\"; equal-storage baselines chosen here), at m = n = 2 and over every "
           "(m, n) in 1..4 x 1..4 with P from 2mn to 4mn"),
    "T4": ("paper", "derivation", "CodeNet (arXiv 1903.01042) abstract: \"We theoretically demonstrate that "
           "CodeNet has higher error tolerance than replication\"; the slopes are judged against "
           "the project's closed forms (docs/reproduction.md, \"Derivations\"), not the paper's"),
    "T5": ("paper", "derivation", "CodeNet abstract: \"We first demonstrate the benefits of CodeNet in reducing "
           "expected computation time over replication when accounting for checkpointing\"; "
           "judged on the project's checkpoint model with checkpoint and restart costs the "
           "project chose (20 ms each, docs/reproduction.md, T5), not on the paper's numbers"),
    "T6": ("paper", "runs", "CodeNet abstract: \"Our experiments show that CodeNet achieves the best "
           "accuracy-runtime tradeoff compared to both replication and uncoded strategies\"; "
           "judged on the simulated runs (the project's time model), CodeNet against each other "
           "strategy by paired 95% intervals of the time and accuracy differences"),
    "T8": ("paper", "derivation", "CodeNet (arXiv 1903.01042) abstract: \"Providing a completely "
           "decentralized implementation with no central node (which is a single point of "
           "failure), allowing all primary computational steps to be error-prone\"; the "
           "rollback rates are judged against the project's closed forms counting every "
           "target (models/theory/training_theory.hpp; docs/reproduction.md, T8), the accuracy "
           "against the error-free run"),
    "T7": ("paraphrase", "reference", "the CodeNet paper's MNIST experiments (uncoded training degrades severely at "
           "eps = 3e-4; paraphrased in docs/reproduction.md, T7: its abstract states only T6)"),
}
