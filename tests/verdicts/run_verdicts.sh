#!/usr/bin/env bash
# The verdict rules (docs/results.md) on a fixture library of ours that holds one op per rule
# (tests/verdicts/verdictops, csrc/ops.cpp says which), built and judged in Debian trixie's
# torch 2.6 by a real `opmatrix run`; then each op's results and the cell's verdict:
#   scale           every check passes (the control);
#   cuda_only       CUDA-only by declaration: registration passes naming it, its behaviour
#                   checks are "not checked here" (no GPU), never red;
#   add_out         no returns, no Meta kernel: meta passes (opcheck ran it on fake tensors);
#   count_positive  a CompositeImplicitAutograd kernel that reads data: meta fails although a
#                   kernel serves Meta (a limit), no meta pass;
#   wrong_fake      a fake size other than the real one: a wrong result, the cell is broken
#                   for it (and only for it);
#   gpu_gated       registered only with a GPU visible: every result "not checked here".
#   run_verdicts.sh OPMATRIX WORK_DIR
# Needs podman and the trixie cell image (never built here); exit 77 with the reason otherwise.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
source "$repo/tests/scripts/fixture_run.sh"
run_fixture "$1" "$2" "$repo/tests/verdicts/matrix.yaml" 1 "wrong_fake breaks the cell, no expect entries" json \
  "$repo/tests/verdicts/check_verdicts.py"
