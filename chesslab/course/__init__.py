"""course: the exercises' checkers (exercises), the student copies of the notebooks
(release) and the grading of returned notebooks (grade)."""
