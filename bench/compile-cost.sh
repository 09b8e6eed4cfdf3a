#!/usr/bin/env bash
# Compile cost of kernels/ + cases/ in one cell's image: every TU's wall time, CPU time and
# peak RSS (bench/tu_time.py as the compiler launcher), for a build from scratch without the
# cases' precompiled header, with it (cold ccache), and with it again from a clean build tree
# on that ccache (every TU should be a ccache hit: checks that ccache accepts the PCH).
#
#   bench/compile-cost.sh [IMAGE] [OUT_DIR]       (IMAGE: the trixie CPU cell's image by default)
# Then: python3 bench/compile_summary.py OUT_DIR > OUT_DIR/summary.md
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
export CONTAINERS_CONF=${CONTAINERS_CONF:-$REPO/containers/podman/containers.conf}
IMAGE=${1:-}
OUT=$(realpath -m "${2:-$REPO/build/bench/compile}")
if [ -z "$IMAGE" ]; then
  IMAGE=$(python3 -c "import json;print(json.load(open('$REPO/results/trixie-torch2.6-cpu.json'))['image'])")
fi
mkdir -p "$OUT"
cp "$REPO/bench/tu_time.py" "$OUT/tu_time.py"
cat > "$OUT/inside.sh" <<'INSIDE'
#!/bin/sh
set -u
run() {  # name pch launcher
  d=/out/$1; rm -rf "$d"; mkdir -p "$d"
  s=$(date +%s.%N)
  TUWRAP_LOG=$d/tu.log cmake -S /src/cases -B "$d/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH=/usr/lib/x86_64-linux-gnu/cmake "-DCMAKE_CXX_COMPILER_LAUNCHER=$3" \
    -DOPMATRIX_WITH_CUDA=OFF -DOPMATRIX_PCH=$2 > "$d/configure.log" 2>&1
  m=$(date +%s.%N)
  TUWRAP_LOG=$d/tu.log cmake --build "$d/build" -j "$(nproc)" > "$d/build.log" 2>&1; rc=$?
  e=$(date +%s.%N)
  echo "$1 configure=$(python3 -c "print(round($m-$s,1))") build=$(python3 -c "print(round($e-$m,1))") rc=$rc" >> /out/summary.txt
  du -sk "$d/build" | awk -v n="$1" '{print n " build_tree_kib=" $1}' >> /out/summary.txt
  rm -rf "$d/build"
}
: > /out/summary.txt
run nopch OFF "python3;/out/tu_time.py"
rm -rf /out/ccache; export CCACHE_DIR=/out/ccache
run pch-ccache-cold ON "python3;/out/tu_time.py;ccache"
ccache -z > /dev/null
run pch-ccache-warm ON "python3;/out/tu_time.py;ccache"
ccache -s > /out/ccache-warm.txt 2>&1
rm -rf /out/ccache
INSIDE
chmod +x "$OUT/inside.sh"
podman run --rm --network=none --memory=12g -v "$REPO:/src:ro" -v "$OUT:/out" "$IMAGE" /out/inside.sh
python3 "$REPO/bench/compile_summary.py" "$OUT" > "$OUT/summary.md"
echo "wrote $OUT/summary.md"
