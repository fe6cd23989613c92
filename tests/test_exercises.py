"""exercises: each checker passes the reference and catches a planted mistake."""
import numpy as np

from chesslab import exercises
from chesslab.encoding import thesis_vector
from chesslab.nn import conv2d_naive


def dense_backward(x, W, grad_out):
    return grad_out @ W.T, x.T @ grad_out, grad_out.sum(axis=0)


def test_thesis_vector_checker(capsys):
    assert exercises.check_thesis_vector(thesis_vector, cases=40).ok
    assert "all 40 cases agree" in capsys.readouterr().out

    def colours_swapped(board):
        return -thesis_vector(board)
    bad = exercises.check_thesis_vector(colours_swapped, cases=40)
    assert not bad.ok and bad.passed == 0 and "expected" in bad.first_failure
    assert "/" in bad.first_failure                      # the FEN to reproduce it

    def upside_down(board):
        return thesis_vector(board).reshape(8, 8)[::-1].reshape(-1)
    assert not exercises.check_thesis_vector(upside_down, cases=40, show=False).ok


def test_dense_backward_checker():
    assert exercises.check_dense_backward(dense_backward, show=False).ok

    def forgot_the_transpose(x, W, grad_out):    # wrong numbers, or raises if W is not square
        _, gw, gb = dense_backward(x, W, grad_out)
        return grad_out @ W, gw, gb
    bad = exercises.check_dense_backward(forgot_the_transpose, show=False)
    assert not bad.ok and "grad_x[" in bad.first_failure
    assert bad.passed < bad.cases // 2

    def mean_not_sum(x, W, grad_out):
        gx, gw, _ = dense_backward(x, W, grad_out)
        return gx, gw, grad_out.mean(axis=0)
    bad = exercises.check_dense_backward(mean_not_sum, show=False)
    assert not bad.ok and "grad_b" in bad.first_failure


def test_conv2d_checker_and_a_student_who_has_not_started(capsys):
    def reference(x, weight, bias, padding):
        return conv2d_naive(x, weight, bias, padding=padding)
    assert exercises.check_conv2d(reference, show=False).ok

    def flipped_kernel(x, weight, bias, padding):
        return conv2d_naive(x, weight[:, :, ::-1, ::-1], bias, padding=padding)
    bad = exercises.check_conv2d(flipped_kernel, show=False)
    assert not bad.ok and 0 < bad.passed < bad.cases      # a 1x1 kernel is the same flipped

    def stub(x, weight, bias, padding):
        raise NotImplementedError("slide the kernel over the padded board")
    result = exercises.check_conv2d(stub, cases=5)
    assert result.passed == 0 and "not written yet" in capsys.readouterr().out
    np.testing.assert_equal(result.cases, 5)


def test_gaussian_nb_checker():
    def reference(X, y):
        classes = np.unique(y)
        rows = [X[y == c] for c in classes]
        return (np.array([len(r) / len(X) for r in rows]),
                np.stack([r.mean(axis=0) for r in rows]), np.stack([r.var(axis=0) for r in rows]))
    assert exercises.check_gaussian_nb_fit(reference, show=False).ok

    def sample_variance(X, y):                 # ddof=1: not what Gaussian NB fits
        priors, means, _ = reference(X, y)
        return priors, means, np.stack([X[y == c].var(axis=0, ddof=1) for c in np.unique(y)])
    bad = exercises.check_gaussian_nb_fit(sample_variance, show=False)
    assert not bad.ok and "variances" in bad.first_failure

    def equal_priors(X, y):
        _, means, variances = reference(X, y)
        return np.full(len(means), 1 / len(means)), means, variances
    assert "priors" in exercises.check_gaussian_nb_fit(equal_priors, show=False).first_failure
