"""Measured results: each command writes data/results/NAME.json (one module per topic).

Timings, long matches and trainings cannot be recomputed every time a figure is drawn or
a notebook runs (and a figure must come out byte-identical on every run), so they are
measured here, once, by a named command, and the figures and notebooks read the files:

    python -m chesslab results evaluators      # the evaluators' table (evaluators.results_table)
    python -m chesslab results depth-cost      # nodes and seconds vs depth per algorithm
    python -m chesslab results tournament      # round robin between evaluators
    python -m chesslab results ladder          # one Elo scale for every player (ladder)
    python -m chesslab results event-ladder    # the class event's ladder, anchored on Stockfish
    python -m chesslab results match --a nnue@1s --b pst@1s --games 100 --workers 2
    python -m chesslab results recipe          # what each training-recipe step buys
    python -m chesslab results bayes           # Naive Bayes against simple baselines
    python -m chesslab results bayes-matches   # bayes:3 against random, material:3, pst:3
    python -m chesslab results mcts-matches    # mcts:300 against the classic players
    python -m chesslab results mcts-tuning     # MCTS settings on held-out labelled positions
    python -m chesslab results mcts-losses     # the positions before a player's blunders
    python -m chesslab results network-steps   # what each step of a network's making bought
    python -m chesslab results mcts-head-to-head --a NEW.json --b OLD.json
    python -m chesslab results rerate-matches  # stored match records' intervals from their counts
    python -m chesslab results net-comparison  # ANN vs CNN trained alike, to early stopping

Long runs survive being stopped: ``parallel.resumable_map`` appends every finished job (a pair of
games, a chunk of games) to a checkpoint in data/results/partial/, and a rerun of the
same command plays only the jobs that checkpoint lacks (``store``). ``record_match`` adds a
match to a results file, replacing a rerun of the same match.
"""
