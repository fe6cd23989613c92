#!/usr/bin/env bash
# Strict nbval on the notebooks under several OpenBLAS kernels: the stored outputs must
# be the same on every CPU (a student's laptop picks its kernel by its CPU).
#
#     tools/check_kernels.sh                                  # every notebook
#     tools/check_kernels.sh notebooks/12_alphazero_loop.ipynb [...]
#     KERNELS="SkylakeX default" tools/check_kernels.sh ...   # only some kernels
#
# Prints one line per kernel and notebook (PASS / FAIL, seconds) and, for a failure, the
# cells nbval named; exits 1 if any failed. Only for a person to run: the tests and .ci/run
# keep the machine's own OpenBLAS settings (some machines set OPENBLAS_CORETYPE on purpose).
# "default" runs with OPENBLAS_CORETYPE unset (the kernel OpenBLAS picks for this CPU).
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -gt 0 ]; then
    notebooks=("$@")
else
    notebooks=(notebooks/[0-9]*.ipynb)
fi
for nb in "${notebooks[@]}"; do
    if [ ! -f "$nb" ]; then
        echo "check_kernels: no notebook $nb (give paths like notebooks/12_alphazero_loop.ipynb)" >&2
        exit 2
    fi
done
read -r -a kernels <<< "${KERNELS:-Haswell SkylakeX Prescott default}"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
log=$(mktemp -d)
failed=0
for kernel in "${kernels[@]}"; do
    for nb in "${notebooks[@]}"; do
        out="$log/$(basename "$nb" .ipynb).$kernel.log"
        start=$(date +%s)
        if [ "$kernel" = "default" ]; then
            env -u OPENBLAS_CORETYPE python -m pytest -q "$nb" >"$out" 2>&1
        else
            OPENBLAS_CORETYPE="$kernel" python -m pytest -q "$nb" >"$out" 2>&1
        fi
        status=$?
        seconds=$(( $(date +%s) - start ))
        if [ "$status" -eq 0 ]; then
            printf '%-9s %-8s %-36s %4ss\n' PASS "$kernel" "$(basename "$nb")" "$seconds"
        else
            failed=1
            # nbval names a failing cell "Cell N": N counts the code cells from 0
            cells=$(grep -oE '^FAILED [^ ]+::Cell [0-9]+' "$out" | sed 's/^.*::Cell / code cell /' \
                    | tr -d '\n')
            printf '%-9s %-8s %-36s %4ss  failed:%s (log %s)\n' FAIL "$kernel" \
                "$(basename "$nb")" "$seconds" "${cells:- see log}" "$out"
        fi
    done
done
exit "$failed"
