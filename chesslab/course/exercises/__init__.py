"""The checkers of the course's "your turn" cells, one module per topic: ``encoding``
(01, 11), ``networks`` (02, 03), ``design`` (02's design), ``training`` (04, 05),
``nnue`` (05), ``minimax`` (06), ``alphabeta`` (07), ``matches`` (08), ``bayes`` (10),
``mcts`` (11), ``alphazero`` (12). A notebook imports the checkers it uses from their
module, e.g. ``from chesslab.course.exercises.mcts import check_puct_select``.

Each ``check_*`` runs the student's function and the package's own code (the reference)
on many seeded cases, prints one line (how many cases agree, and the first case that does
not, shown so it can be reproduced) and returns a ``CheckResult``. A checker never raises
on a wrong answer: a student's error is the thing to look at, not a traceback in the
checker. An exception inside the student's function is reported the same way, with the
input that raised it; a stub that still raises ``NotImplementedError`` everywhere is "not
attempted" (one line), so a student's copy runs top to bottom before every exercise is
done. The reference is switched off while the student's function runs, so a submission
that calls it (``my_f = f``) fails with "uses the reference". The graded verdict (the
``assert`` on ``.ok``) sits in the notebook's hidden tests, which the student's copy
leaves out. The shared machinery is in ``chesslab.course.checking``.
"""

